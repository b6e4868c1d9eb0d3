//go:build libtorch && cgo

package distribution_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/internal/netns"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/distribution/c10d"
)

// The tests in this file run jobs across test machines: network
// namespaces joined through a bridge (internal/netns), each with its own
// address, interface and host name, and an /etc/hosts that maps its own
// name to 127.0.1.1 as Debian's does, which is what made Gloo advertise a
// loopback address before. They need root and iproute2.

func init() {
	workers["join"] = joinWorker
	workers["long-mlp"] = longMLPWorker
	workers["hold-port"] = holdPortWorker
}

// holdPortWorker is another program on the job's port: it accepts
// connections and never answers.
func holdPortWorker() error {
	l, err := net.Listen("tcp", ":"+os.Getenv("MASTER_PORT"))
	if err != nil {
		return err
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	time.Sleep(time.Minute)
	return nil
}

// skipUnlessMachines skips a test that needs distributed training and test
// machines, with one line saying why.
func skipUnlessMachines(t *testing.T) {
	t.Helper()
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	netns.SkipUnlessAvailable(t)
}

var kerasgoBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "kerasgo-launch")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "kerasgo")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/kerasgo/kerasgo/cmd/kerasgo").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build cmd/kerasgo: %v\n%s", err, out)
	}
	return bin, nil
})

// launchOnMachines runs, on each machine i, the documented command
//
//	kerasgo launch -n 2 -nnodes N -node-rank i -master-addr 192.168.77.1 ./prog
//
// with the test binary as the program, running worker, and returns each
// machine's output.
func launchOnMachines(t *testing.T, c *netns.Cluster, perMachine int, limit time.Duration, env ...string) []disttest.Result {
	t.Helper()
	bin, err := kerasgoBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, len(c.Machines))
	for i := range c.Machines {
		cmds[i] = c.Command(i, bin, "launch", "-n", strconv.Itoa(perMachine), "-nnodes", strconv.Itoa(len(c.Machines)), "-node-rank", strconv.Itoa(i),
			"-master-addr", c.Machines[0].Addr, os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), env...)
	}
	return disttest.RunCommands(t, cmds, limit)
}

// Two machines of two processes each, started with the documented
// kerasgo launch commands and without GLOO_SOCKET_IFNAME, train the MLP
// as one machine does with the same global batch: the ranks stay
// bit-identical after every step, the weights equal 4 processes on one
// machine's within 1e-6, and one process's on the global batches within
// 1e-5 (checkRanks). Before, Gloo bound each machine's host-name address,
// 127.0.1.1, and the job failed about a second after both started.
func TestSeveralMachinesTrainAsOne(t *testing.T) {
	skipUnlessMachines(t)
	for _, engine := range openEngines(t) {
		t.Run(engine, func(t *testing.T) {
			c := netns.New(t, 2, netns.DebianHosts)
			dir := t.TempDir()
			for _, r := range launchOnMachines(t, c, 2, 3*time.Minute, disttest.WorkerVar+"=train-mlp", "TEST_ENGINE="+engine, "TEST_OUT="+dir) {
				if r.Err != nil {
					t.Fatalf("machine %d: %v\n%s", r.Rank, r.Err, r.Output)
				}
			}
			checkRanks(t, engine, 4, dir)
			one := t.TempDir()
			for _, r := range disttest.Run(t, "train-mlp", 4, 3*time.Minute, "TEST_ENGINE="+engine, "TEST_OUT="+one) {
				if r.Err != nil {
					t.Fatalf("one machine, rank %d: %v\n%s", r.Rank, r.Err, r.Output)
				}
			}
			got, want := readReports(t, dir, 4)[0], readReports(t, one, 4)[0]
			worst := 0.0
			for i := range want.Weights {
				for j, w := range want.Weights[i] {
					d := math.Abs(float64(got.Weights[i][j] - w))
					if d > 1e-6 {
						t.Fatalf("weight %d[%d]: two machines %v, one machine %v", i, j, got.Weights[i][j], w)
					}
					worst = max(worst, d)
				}
			}
			t.Logf("2 machines x 2 processes: weights within %.1g of 4 processes on one machine", worst)
		})
	}
}

// joinWorker joins the job and leaves it.
func joinWorker() error {
	timeout, _ := time.ParseDuration(os.Getenv("TEST_TIMEOUT"))
	dp, err := distribution.NewDataParallel(distribution.Config{Timeout: timeout})
	if err != nil {
		return err
	}
	if err := dp.Barrier(); err != nil {
		return err
	}
	return dp.Close()
}

// joinFaultTimeout is the c10d timeout of TestJoinFaultsAreNamed's jobs.
const joinFaultTimeout = 6 * time.Second

// A job that cannot join across machines fails on every rank within the
// timeout (plus a margin for this shared machine), with an error that
// names the address at fault: a MASTER_ADDR no machine has, a machine
// whose packets to machine 0 are dropped (as by a firewall), and machine
// 0 advertising a loopback address (what PyTorch's default does on a
// Debian host; forced here with GLOO_SOCKET_IFNAME=lo), in which case
// Gloo's listening side used to wait for ever.
func TestJoinFaultsAreNamed(t *testing.T) {
	skipUnlessMachines(t)
	for _, c := range []struct {
		name  string
		setup func(c *netns.Cluster) error
		env   func(rank int) []string
		says  func(rank int) string
	}{
		{
			name: "wrong master address",
			env: func(rank int) []string {
				if rank >= 2 {
					return []string{"MASTER_ADDR=192.168.77.9"}
				}
				return nil
			},
			says: func(rank int) string {
				if rank >= 2 {
					return "no machine answered at 192.168.77.9:29500 within 6s"
				}
				return "reached the job's store"
			},
		},
		{
			name:  "dropped packets",
			setup: func(c *netns.Cluster) error { return c.DropTo(1, c.Machines[0].Addr) },
			says: func(rank int) string {
				if rank >= 2 {
					return "no machine answered at 192.168.77.1:29500 within 6s"
				}
				return "reached the job's store"
			},
		},
		{
			name: "port in use",
			setup: func(c *netns.Cluster) error {
				cmd := c.Command(0, os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), disttest.WorkerVar+"=hold-port", "MASTER_PORT=29500")
				if err := cmd.Start(); err != nil {
					return err
				}
				go cmd.Wait()
				time.Sleep(time.Second)
				return nil
			},
			says: func(rank int) string {
				if rank == 0 {
					return "port 29500 is already in use on this machine"
				}
				return "did not answer as the job's store"
			},
		},
		{
			name: "loopback advertised",
			env: func(rank int) []string {
				if rank < 2 {
					return []string{"GLOO_SOCKET_IFNAME=lo"}
				}
				return nil
			},
			says: func(int) string { return "Rank 0, 1 advertised a loopback address" },
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := netns.New(t, 2, netns.DebianHosts)
			if c.setup != nil {
				if err := c.setup(cl); err != nil {
					t.Fatal(err)
				}
			}
			res := runJoinOnMachines(t, cl, c.env)
			for _, r := range res {
				if r.Err == nil || !strings.Contains(r.Output, c.says(r.Rank)) {
					t.Errorf("rank %d: %v, want an error saying %q:\n%s", r.Rank, r.Err, c.says(r.Rank), r.Output)
				}
				if r.Took > joinFaultTimeout+8*time.Second {
					t.Errorf("rank %d failed after %v, timeout %v", r.Rank, r.Took, joinFaultTimeout)
				}
				t.Logf("rank %d failed after %v: %s", r.Rank, r.Took.Round(10*time.Millisecond), lastLine(r.Output))
			}
		})
	}
}

// runJoinOnMachines runs the join worker, 2 processes on each machine,
// rank r with env(r) added.
func runJoinOnMachines(t *testing.T, c *netns.Cluster, env func(rank int) []string) []disttest.Result {
	t.Helper()
	extra := func(rank int) []string {
		e := []string{"TEST_ENGINE=gorgonia", "TEST_TIMEOUT=" + joinFaultTimeout.String()}
		if env != nil {
			e = append(e, env(rank)...)
		}
		return e
	}
	return disttest.RunOnMachines(t, c, "join", 2, 2*time.Minute, extra)
}

// longMLPWorker trains the MLP for long; rank 0 writes the file
// at-batch-20 when it gets there.
func longMLPWorker() error {
	timeout, _ := time.ParseDuration(os.Getenv("TEST_TIMEOUT"))
	dp, m, err := joinMLP(timeout, false)
	if err != nil {
		return err
	}
	defer dp.Close()
	mark := &callbacks.Lambda{TrainBatchEnd: func(batch int, _ callbacks.Logs) {
		if dp.Rank() == 0 && batch == 20 {
			os.WriteFile(filepath.Join(os.Getenv("TEST_OUT"), "at-batch-20"), nil, 0o644)
		}
	}}
	x, y := mlpData(100000 * dp.WorldSize())
	_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: perRank, Verbose: keras.Silent, Callbacks: []callbacks.Callback{mark}})
	return err
}

// machineFaultTimeout is the c10d timeout of TestLostMachineIsNamed's jobs.
const machineFaultTimeout = 8 * time.Second

// A machine that freezes (every process stopped) or loses its link in the
// middle of training: every rank that still runs fails within the timeout
// plus the diagnosis, naming the ranks it lost. Those of machine 0 name
// ranks 2 and 3; those of a machine cut off name rank 0, whose store they
// can no longer reach.
func TestLostMachineIsNamed(t *testing.T) {
	skipUnlessMachines(t)
	for _, c := range []struct {
		name     string
		fault    func(c *netns.Cluster) error
		survivor func(rank int) bool
	}{
		{"frozen", func(c *netns.Cluster) error { c.Signal(1, syscall.SIGSTOP); return nil }, func(rank int) bool { return rank < 2 }},
		{"link down", func(c *netns.Cluster) error { return c.LinkDown(1) }, func(int) bool { return true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := netns.New(t, 2, netns.DebianHosts)
			dir := t.TempDir()
			start := time.Now()
			resc := make(chan []disttest.Result)
			go func() {
				resc <- disttest.RunOnMachines(t, cl, "long-mlp", 2, 2*time.Minute, disttest.Env("TEST_ENGINE=gorgonia", "TEST_OUT="+dir, "TEST_TIMEOUT="+machineFaultTimeout.String()))
			}()
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(dir, "at-batch-20")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cl.Signal(0, syscall.SIGKILL)
					cl.Signal(1, syscall.SIGKILL)
					res := <-resc
					t.Fatalf("rank 0 did not reach batch 20:\n%s", res[0].Output)
				}
			}
			if err := c.fault(cl); err != nil {
				t.Fatal(err)
			}
			faultAt := time.Now()
			if c.name == "frozen" {
				// The frozen machine is killed once the others are done.
				go func() {
					time.Sleep(machineFaultTimeout + 8*time.Second)
					cl.Signal(1, syscall.SIGKILL)
				}()
			}
			res := <-resc
			for _, r := range res {
				if !c.survivor(r.Rank) {
					continue
				}
				want := "lost ranks 2 and 3 of 4"
				if r.Rank >= 2 {
					want = "lost rank 0"
				}
				if r.Err == nil || !strings.Contains(r.Output, want) {
					t.Errorf("rank %d: %v, want an error saying %q:\n%s", r.Rank, r.Err, want, r.Output)
					continue
				}
				after := start.Add(r.Took).Sub(faultAt)
				if after > machineFaultTimeout+12*time.Second {
					t.Errorf("rank %d failed %v after the fault, timeout %v", r.Rank, after, machineFaultTimeout)
				}
				t.Logf("rank %d failed %v after the fault: %s", r.Rank, after.Round(10*time.Millisecond), lastLine(r.Output))
			}
		})
	}
}

// torchrunOnMachine starts, on machine i, torchrun with the c10d
// rendezvous on machine 0, as the documented command does:
//
//	torchrun --no_python --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d \
//	  --rdzv_endpoint 192.168.77.1:29400 --rdzv_id job --max_restarts 1 ./prog
func torchrunOnMachine(t *testing.T, c *netns.Cluster, i int, python string, out *bytes.Buffer, env ...string) *exec.Cmd {
	t.Helper()
	args := []string{"-m", "torch.distributed.run", "--no_python", "--nnodes", strconv.Itoa(len(c.Machines)), "--nproc_per_node", "2",
		"--rdzv_backend", "c10d", "--rdzv_endpoint", c.Machines[0].Addr + ":29400", "--rdzv_id", "kerasgo-test", "--max_restarts", "1",
		"--redirects", "1", "--tee", "1", "--log_dir", t.TempDir(), os.Args[0], "-test.run=^$"}
	cmd := c.Command(i, python, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// torchrun across two machines (its c10d rendezvous, hosted by machine
// 0's agent) restarts the job after machine 1 is killed in epoch 2 and a
// replacement machine 1 joins; with BackupAndRestore on a directory both
// machines share, the new attempt resumes from the last completed epoch
// and ends with the weights of 4 processes that were never interrupted.
func TestTorchrunAcrossMachinesRestarts(t *testing.T) {
	skipUnlessMachines(t)
	python := disttest.Python(t, c10d.TorchVersion()) // whose torchrun starts the job
	whole := t.TempDir()
	for _, r := range disttest.Run(t, "resume-mlp", 4, 3*time.Minute, "TEST_ENGINE=gorgonia", "TEST_OUT="+whole, "TORCHELASTIC_RESTART_COUNT=0") {
		if r.Err != nil {
			t.Fatalf("uninterrupted rank %d: %v\n%s", r.Rank, r.Err, r.Output)
		}
	}
	c := netns.New(t, 2, netns.ClusterHosts) // torchrun's agents find machine 0 by its host name
	dir := t.TempDir()
	env := []string{disttest.WorkerVar + "=resume-mlp", "TEST_ENGINE=gorgonia", "TEST_OUT=" + dir, "MARK_EPOCH_1=1"}
	var out0, out1, out1b bytes.Buffer
	agent0 := torchrunOnMachine(t, c, 0, python, &out0, env...)
	agent1 := torchrunOnMachine(t, c, 1, python, &out1, env...)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "epoch1-batch10")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank 0 did not reach epoch 2:\nmachine 0:\n%s\nmachine 1:\n%s", &out0, &out1)
		}
	}
	c.Signal(1, syscall.SIGKILL) // the whole machine: agent and workers
	agent1.Wait()
	killedAt := time.Now()
	agent1b := torchrunOnMachine(t, c, 1, python, &out1b, env...) // its replacement
	wait := func(cmd *exec.Cmd, name string, out *bytes.Buffer) {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
		case <-time.After(4 * time.Minute):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%s still running 4 minutes after machine 1 was killed:\n%s", name, out)
		}
	}
	wait(agent0, "machine 0's torchrun", &out0)
	wait(agent1b, "machine 1's replacement torchrun", &out1b)
	t.Logf("the job ended %v after machine 1 was killed", time.Since(killedAt).Round(100*time.Millisecond))
	compareFinalWeights(t, whole, dir, 4, "machine 0:\n"+out0.String())
	// Each attempt's rank 0 wrote the first epoch it trained into
	// attempt<TORCHELASTIC_RESTART_COUNT>-rank0 (a restart for a new
	// machine does not count, so it may be the same file).
	attempts, _ := filepath.Glob(filepath.Join(dir, "attempt*-rank0"))
	resumed := false
	for _, f := range attempts {
		data, _ := os.ReadFile(f)
		resumed = resumed || string(data) == "1"
	}
	if !resumed {
		t.Fatalf("no attempt of rank 0 began at epoch 2 (%v): the restarted job did not resume from the backup\n%s", attempts, &out0)
	}
}
