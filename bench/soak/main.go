// Command soak trains the demo MLP (or CNN) for many steps and reports the
// resident memory at step 1,000 and at the end, to show that memory stays
// flat (every engine must free what a step does not return):
//
//	go run ./bench/soak -backend gorgonia -steps 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/bench"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// rss returns the current resident set size (VmRSS) in bytes.
func rss() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return -1
}

// sampler records RSS after chosen steps.
type sampler struct {
	callbacks.Base
	every int
	step  int
	out   map[int]int64
}

func (s *sampler) OnTrainBatchEnd(int, callbacks.Logs) {
	s.step++
	if s.step%s.every == 0 {
		runtime.GC() // count what is live, not garbage not yet collected
		s.out[s.step] = rss()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("step %6d  RSS %7.1f MB  Go heap in use %6.1f MB\n", s.step, float64(s.out[s.step])/(1<<20), float64(ms.HeapInuse)/(1<<20))
	}
}

func main() {
	model := flag.String("model", "mlp", "mlp or cnn")
	engine := flag.String("backend", "", "engine")
	steps := flag.Int("steps", 10000, "training steps")
	batch := flag.Int("batch", 128, "batch size")
	flag.Parse()
	m, err := bench.Compiled(*model, *engine)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	const perEpoch = 100 // batches of distinct data, repeated
	x, y := bench.Data(*batch*perEpoch, 1)
	s := &sampler{every: 1000, out: map[int]int64{}}
	epochs := (*steps + perEpoch - 1) / perEpoch
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: epochs, BatchSize: *batch, Callbacks: []callbacks.Callback{s}}); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	first, last := s.out[1000], s.out[s.step-s.step%1000]
	fmt.Printf("engine=%s model=%s steps=%d rss_step1000_mb=%.1f rss_last_mb=%.1f growth_pct=%.2f\n",
		m.Backend().Name(), *model, s.step, float64(first)/(1<<20), float64(last)/(1<<20), 100*float64(last-first)/float64(first))
}
