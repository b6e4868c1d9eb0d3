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
	"os"
	"runtime/pprof"
	"runtime/trace"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/bench"
)

func main() {
	model := flag.String("model", "mlp", "mlp, cnn, resnet, transformer or lstm")
	engine := flag.String("backend", "", "engine (default: as kerasgo selects)")
	batch := flag.Int("batch", 128, "batch size")
	warmup := flag.Int("warmup", 3, "untimed steps first (they compile)")
	steps := flag.Int("steps", 20, "timed steps")
	label := flag.String("label", "", "name for this build in the output (default kerasgo-<engine>)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (warm-up included) to this file, for go tool pprof")
	traceFile := flag.String("trace", "", "write an execution trace of the whole run to this file, for go tool trace (the measured steps are the region \"timed steps\")")
	flag.Parse()
	if *traceFile != "" {
		f, err := os.Create(*traceFile)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "stepbench:", err)
			os.Exit(1)
		}
		defer trace.Stop()
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "stepbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
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
