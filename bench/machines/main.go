// Command machines runs a data-parallel job across test machines, Linux
// network namespaces joined through a bridge (internal/netns, as the
// several-machine tests build them), for benchmarks and make
// demo-distributed: on each machine i it runs
//
//	kerasgo launch -n PROCS -nnodes N -node-rank i -master-addr 192.168.77.1 PROGRAM ARGS...
//
// prints machine 0's output (rank 0's lines) and exits with the first
// failure. It needs root and iproute2.
//
//	machines -n 2 -procs 1 -kerasgo build/kerasgo -- build/allreduce -sizes 1,16
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/kerasgo/kerasgo/internal/netns"
)

func main() {
	n := flag.Int("n", 2, "machines")
	procs := flag.Int("procs", 1, "processes on each machine")
	kerasgo := flag.String("kerasgo", "build/kerasgo", "the kerasgo command")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: machines [-n 2] [-procs 1] [-kerasgo build/kerasgo] -- PROGRAM [ARGS...]")
		os.Exit(2)
	}
	if err := run(*n, *procs, *kerasgo, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "machines:", err)
		os.Exit(1)
	}
}

func run(n, procs int, kerasgo string, prog []string) error {
	c, err := netns.Build(n, netns.DebianHosts)
	if c != nil {
		defer c.Remove()
	}
	if err != nil {
		return err
	}
	outs := make([]bytes.Buffer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		args := append([]string{"launch", "-n", strconv.Itoa(procs), "-nnodes", strconv.Itoa(n), "-node-rank", strconv.Itoa(i), "-master-addr", c.Machines[0].Addr}, prog...)
		cmd := c.Command(i, kerasgo, args...)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cmd.Wait()
		}()
	}
	wg.Wait()
	os.Stdout.Write(outs[0].Bytes())
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("machine %d: %v\n%s", i, err, outs[i].String())
		}
	}
	return nil
}
