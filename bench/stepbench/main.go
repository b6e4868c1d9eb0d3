// Command stepbench measures kerasgo's training step time and peak memory
// for the demo's MLP or CNN, the small ResNet, Keras's transformer text
// classifier or an LSTM(64) classifier, and prints one line for
// scripts/bench.sh:
//
//	go run ./bench/stepbench -model cnn -steps 10
//
// With -serve it compiles and warms up once, prints "ready", and then
// times -steps steps for each line it reads from standard input, printing
// one result line each, until standard input ends: bench/pairs.py drives
// it beside PyTorch's bench/torch_step.py --serve, alternating chunks.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/bench"
)

func main() {
	model := flag.String("model", "mlp", "mlp, cnn, resnet, transformer, lstm, or a 2016 network: fcn5, fcn8, alexnet, resnet50, lstm32, lstm64")
	engine := flag.String("backend", "", "engine (default: as kerasgo selects)")
	batch := flag.Int("batch", 128, "batch size")
	policy := flag.String("policy", "", "Keras dtype policy of every layer but the last, e.g. mixed_bfloat16 (default float32)")
	warmup := flag.Int("warmup", 3, "untimed steps first (they compile)")
	steps := flag.Int("steps", 20, "timed steps")
	label := flag.String("label", "", "name for this build in the output (default kerasgo-<engine>)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (warm-up included) to this file, for go tool pprof")
	serve := flag.Bool("serve", false, "after the warm-up, time -steps steps for each line read from standard input (see bench/pairs.py)")
	traceFile := flag.String("trace", "", "write an execution trace of the whole run to this file, for go tool trace (the measured steps are the region \"timed steps\")")
	flag.Parse()
	record(*traceFile, trace.Start)
	defer trace.Stop()
	record(*cpuProfile, pprof.StartCPUProfile)
	defer pprof.StopCPUProfile()
	ctx := context.Background()
	s, err := bench.NewStepper(ctx, *model, *engine, *policy, *batch, *warmup, *steps)
	if err != nil {
		fail(err)
	}
	if !*serve {
		timeOnce(ctx, s, *label)
		return
	}
	fmt.Println("ready")
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		timeOnce(ctx, s, *label)
	}
	if err := lines.Err(); err != nil {
		fail(err)
	}
}

// timeOnce times one chunk of steps and prints its result line.
func timeOnce(ctx context.Context, s *bench.Stepper, label string) {
	r, err := s.Time(ctx)
	if err != nil {
		fail(err)
	}
	r.Label = label
	fmt.Println(r)
}

// fail stops the recordings, says why on standard error and exits 1.
func fail(err error) {
	pprof.StopCPUProfile()
	trace.Stop()
	fmt.Fprintln(os.Stderr, "stepbench:", err)
	os.Exit(1)
}

// record starts a recording (an execution trace, a CPU profile) into the
// file at path, if path is set, or exits saying why it could not.
func record(path string, start func(io.Writer) error) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stepbench:", err)
		os.Exit(1)
	}
}
