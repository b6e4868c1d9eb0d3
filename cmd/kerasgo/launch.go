package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// launchUsage is kerasgo launch's synopsis.
const launchUsage = "usage: kerasgo launch [-n procs] [-nnodes N -node-rank K -master-addr host] [-master-port port] ./prog [args...]"

// launch starts the worker processes of a data-parallel job on this
// machine, with the variables PyTorch's torchrun sets (RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT), so
// that a program built with keras/distribution joins the job. As torchrun
// does, when one worker fails the others are stopped and launch exits with
// that worker's status; an interrupt is passed on to every worker.
func launch(args []string) (int, error) {
	fs := flag.NewFlagSet("launch", flag.ContinueOnError)
	procs := fs.Int("n", 1, "worker processes on this machine (torchrun's --nproc-per-node)")
	nnodes := fs.Int("nnodes", 1, "machines in the job")
	nodeRank := fs.Int("node-rank", 0, "this machine's number, from 0; machine 0 runs rank 0")
	addr := fs.String("master-addr", "127.0.0.1", "address of machine 0, where rank 0 hosts the rendezvous store")
	port := fs.Int("master-port", 0, "the store's port (default: a free port when the job is on one machine, else 29500)")
	grace := fs.Duration("grace", 10*time.Second, "how long workers get to exit after a failure or an interrupt before they are killed")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	switch {
	case fs.NArg() == 0:
		return 2, errors.New("no program to launch: " + launchUsage)
	case *procs < 1:
		return 2, fmt.Errorf("-n %d: give at least 1 worker process", *procs)
	case *nnodes < 1 || *nodeRank < 0 || *nodeRank >= *nnodes:
		return 2, fmt.Errorf("-node-rank %d of -nnodes %d: the node rank must be in [0, nnodes)", *nodeRank, *nnodes)
	case *port < 0 || *port > 65535:
		return 2, fmt.Errorf("-master-port %d is not a TCP port", *port)
	}
	if *port == 0 {
		if *nnodes > 1 {
			*port = 29500 // every machine must agree without talking first
		} else {
			p, err := freePort(*addr)
			if err != nil {
				return 1, err
			}
			*port = p
		}
	}
	world := *nnodes * *procs
	// The workers share this machine's cores, as torchrun arranges with
	// OMP_NUM_THREADS (the libtorch engine and OpenBLAS read it): each would
	// otherwise start a thread per core in every worker (measured: steps 7x
	// slower with 2 workers on 2 cores). Gorgonia's goroutines need no
	// limit (measured: GOMAXPROCS=1 made its steps slower).
	var threadEnv []string
	if os.Getenv("OMP_NUM_THREADS") == "" && *procs > 1 {
		threadEnv = append(threadEnv, "OMP_NUM_THREADS="+strconv.Itoa(max(1, runtime.NumCPU() / *procs)))
	}
	workers := make([]*exec.Cmd, *procs)
	done := make(chan workerExit, *procs)
	var outputs sync.WaitGroup
	for local := range *procs {
		rank := *nodeRank**procs + local
		cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
		cmd.Env = append(os.Environ(),
			"RANK="+strconv.Itoa(rank), "LOCAL_RANK="+strconv.Itoa(local), "WORLD_SIZE="+strconv.Itoa(world),
			"LOCAL_WORLD_SIZE="+strconv.Itoa(*procs), "GROUP_RANK="+strconv.Itoa(*nodeRank),
			"MASTER_ADDR="+*addr, "MASTER_PORT="+strconv.Itoa(*port))
		cmd.Env = append(cmd.Env, threadEnv...)
		cmd.Stdin = nil
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if rank == 0 {
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // progress bars pass through untouched
		} else {
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				return 1, err
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				return 1, err
			}
			prefix := fmt.Sprintf("[rank %d] ", rank)
			outputs.Add(2)
			go prefixLines(&outputs, stdout, os.Stdout, prefix)
			go prefixLines(&outputs, stderr, os.Stderr, prefix)
		}
		if err := cmd.Start(); err != nil {
			stopAll(workers, syscall.SIGKILL)
			return 1, fmt.Errorf("starting worker %d (%s): %w", rank, fs.Arg(0), err)
		}
		workers[local] = cmd
		go func() { done <- workerExit{rank: rank, err: cmd.Wait()} }()
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	status := 0
	var failure error
	var deadline <-chan time.Time
	for running := *procs; running > 0; {
		select {
		case w := <-done:
			running--
			if w.err != nil && failure == nil {
				status, failure = exitStatus(w.err), fmt.Errorf("worker %d failed (%v), so the others were stopped", w.rank, w.err)
				stopAll(workers, syscall.SIGTERM)
				deadline = time.After(*grace)
			}
		case sig := <-signals:
			if failure == nil {
				status, failure = 130, fmt.Errorf("interrupted (%v): the workers were stopped", sig)
				deadline = time.After(*grace)
			}
			stopAll(workers, sig.(syscall.Signal))
		case <-deadline:
			stopAll(workers, syscall.SIGKILL)
		}
	}
	outputs.Wait()
	return status, failure
}

type workerExit struct {
	rank int
	err  error
}

// stopAll sends sig to every started worker's process group.
func stopAll(workers []*exec.Cmd, sig syscall.Signal) {
	for _, w := range workers {
		if w != nil && w.Process != nil && w.ProcessState == nil {
			syscall.Kill(-w.Process.Pid, sig)
		}
	}
}

// exitStatus is the status to exit with for a worker's failure.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return ee.ExitCode()
	}
	return 1
}

func prefixLines(wg *sync.WaitGroup, r io.Reader, w io.Writer, prefix string) {
	defer wg.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fmt.Fprintf(w, "%s%s\n", prefix, sc.Bytes())
	}
}

// freePort returns a TCP port nothing listens on at addr now.
func freePort(addr string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		return 0, fmt.Errorf("finding a free port on %s: %w (give -master-port)", addr, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
