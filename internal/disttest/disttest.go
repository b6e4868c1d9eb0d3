// Package disttest starts the processes of a distributed test: the test
// binary runs itself once per rank, with the variables a launcher sets
// (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and the test's TestMain
// sends those processes to the worker code instead of the tests.
package disttest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/internal/netns"
)

// WorkerVar is set, in a worker process, to the name of the worker to run.
const WorkerVar = "KERASGO_DISTTEST_WORKER"

// FreePort returns a TCP port on the loopback address that nothing
// listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Result is what one worker process did.
type Result struct {
	Rank   int
	Err    error // its exit status, if not 0
	Output string
	Took   time.Duration
}

// Run starts world worker processes of the test binary running worker,
// with extra environment variables, and waits for all of them (at most
// limit).
func Run(t testing.TB, worker string, world int, limit time.Duration, extra ...string) []Result {
	t.Helper()
	return RunSome(t, worker, world, world, limit, extra...)
}

// RunSome is Run for a job of world ranks of which only the first n are
// started here (the others join from elsewhere, e.g. a Python process).
func RunSome(t testing.TB, worker string, n, world int, limit time.Duration, extra ...string) []Result {
	t.Helper()
	port := FreePort(t)
	cmds := make([]*exec.Cmd, n)
	for r := range n {
		cmds[r] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[r].Env = append(os.Environ(), WorkerVar+"="+worker, "RANK="+strconv.Itoa(r), "LOCAL_RANK="+strconv.Itoa(r),
			"WORLD_SIZE="+strconv.Itoa(world), "MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port))
		cmds[r].Env = append(cmds[r].Env, extra...)
	}
	return RunCommands(t, cmds, limit)
}

// RunOnMachines runs a job of perMachine worker processes on each of
// c's machines, rank r on machine r/perMachine, with the variables a
// launcher sets there (MASTER_ADDR is machine 0's address) and those
// extra(r) gives, and waits for all of them (at most limit).
func RunOnMachines(t testing.TB, c *netns.Cluster, worker string, perMachine int, limit time.Duration, extra func(rank int) []string) []Result {
	t.Helper()
	world := perMachine * len(c.Machines)
	cmds := make([]*exec.Cmd, world)
	for r := range world {
		cmds[r] = c.Command(r/perMachine, os.Args[0], "-test.run=^$")
		cmds[r].Env = append(os.Environ(), WorkerVar+"="+worker, "RANK="+strconv.Itoa(r), "LOCAL_RANK="+strconv.Itoa(r%perMachine),
			"WORLD_SIZE="+strconv.Itoa(world), "LOCAL_WORLD_SIZE="+strconv.Itoa(perMachine),
			"MASTER_ADDR="+c.Machines[0].Addr, "MASTER_PORT=29500")
		cmds[r].Env = append(cmds[r].Env, extra(r)...)
	}
	return RunCommands(t, cmds, limit)
}

// Env is the extra of RunOnMachines that gives every rank vars.
func Env(vars ...string) func(rank int) []string {
	return func(int) []string { return vars }
}

// RunCommands starts cmds (one per rank, or per machine) and waits for
// all of them, killing those still running after limit (with their
// process group, when they run in one of their own).
func RunCommands(t testing.TB, cmds []*exec.Cmd, limit time.Duration) []Result {
	t.Helper()
	res := make([]Result, len(cmds))
	var wg sync.WaitGroup
	for r, cmd := range cmds {
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				res[r] = Result{Rank: r, Err: err, Output: out.String(), Took: time.Since(start)}
			case <-time.After(limit):
				if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				} else {
					cmd.Process.Kill()
				}
				<-done
				res[r] = Result{Rank: r, Err: fmt.Errorf("still running after %v: killed", limit), Output: out.String(), Took: time.Since(start)}
			}
		}()
	}
	wg.Wait()
	return res
}

// Port returns MASTER_PORT as this worker process sees it.
func Port() int {
	p, _ := strconv.Atoi(os.Getenv("MASTER_PORT"))
	return p
}
