// Command stepbench measures kerasgo's training step time and peak memory
// for the demo's MLP or CNN, the small ResNet, Keras's transformer text
// classifier or an LSTM(64) classifier, and prints one line for
// scripts/bench.sh:
//
//	go run ./bench/stepbench -model cnn -steps 10
package main

import (
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
	warmup := flag.Int("warmup", 3, "untimed steps first (they compile)")
	steps := flag.Int("steps", 20, "timed steps")
	label := flag.String("label", "", "name for this build in the output (default kerasgo-<engine>)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (warm-up included) to this file, for go tool pprof")
	traceFile := flag.String("trace", "", "write an execution trace of the whole run to this file, for go tool trace (the measured steps are the region \"timed steps\")")
	flag.Parse()
	record(*traceFile, trace.Start)
	defer trace.Stop()
	record(*cpuProfile, pprof.StartCPUProfile)
	defer pprof.StopCPUProfile()
	r, err := bench.StepTime(context.Background(), *model, *engine, *batch, *warmup, *steps)
	if err != nil {
		pprof.StopCPUProfile()
		trace.Stop()
		fmt.Fprintln(os.Stderr, "stepbench:", err)
		os.Exit(1)
	}
	r.Label = *label
	fmt.Println(r)
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
