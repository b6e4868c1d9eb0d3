//go:build libtorch

// Command interleave measures kerasgo's overhead over its libtorch engine
// without the noise between processes: it times kerasgo's LSTM(64)
// training step (bench model "lstm", batch 32) and the same step written
// directly against gotch (libtorch's lstm op, a linear head,
// cross-entropy, backward, Adam, the loss and the number of correct
// predictions read back), in alternating chunks within one process.
//
// On a shared 2-core machine one process's step time moves by up to 40%
// from the next's (each keeps its speed for its whole life), so two
// implementations timed in separate processes need many rounds to compare
// within 5%; chunks in one process see the same machine.
//
//	go run -tags=libtorch -modfile=build/gotch-pypi/go.mod -overlay=build/gotch-pypi/overlay.json ./bench/interleave -rounds 7
//
// It prints one line per round and the median of the rounds' ratios
// (kerasgo / direct). The first round's direct chunk includes libtorch's
// first-call set-up; its ratio is left out of the median.
//
// With -serve it times the direct step alone, in bench/pairs.py's
// protocol (prints "ready" once the step is built, then for each line
// read from standard input runs 3 untimed steps and prints the time of
// -steps more), so that
// bench/pairs.py can set it beside PyTorch's bench/torch_step.py --serve
// or kerasgo's bench/stepbench -serve, each in its own process. It opens
// the engine first, as kerasgo would: that sets jemalloc (when linked) to
// keep freed pages, without which the direct step takes about twice as
// long on this network.
//
// -keras-loss makes the direct step compute its loss op for op as Keras
// (and kerasgo) define it for softmax probabilities, and -clipped-logits
// the same function from the logits in three ops (log_softmax, clamp,
// nll_loss), to see what the loss's formulation costs (docs/benchmarks.md).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/bench"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
	"github.com/sugarme/gotch/ts"
)

const batch, timesteps, features, units, classes = 32, 100, 8, 64, 10

func main() {
	rounds := flag.Int("rounds", 7, "chunks of each implementation")
	steps := flag.Int("steps", 60, "timed steps per chunk")
	serve := flag.Bool("serve", false, "time only the direct step, one chunk per line of standard input (see bench/pairs.py)")
	flag.BoolVar(&clippedLogits, "clipped-logits", false, "the direct step computes Keras's clipped loss from the logits: log_softmax, clamped to [log 1e-7, log(1-1e-7)], nll_loss")
	flag.BoolVar(&kerasLoss, "keras-loss", false, "the direct step computes its loss as kerasgo does, Keras's way (softmax probabilities, normalised, clipped, log), instead of libtorch's fused cross-entropy on logits")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof; time in libtorch shows under the Go call that made it)")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "interleave:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "interleave:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *serve {
		serveDirect(*steps)
		return
	}
	if *rounds < 2 {
		fmt.Fprintln(os.Stderr, "interleave: -rounds must be at least 2")
		os.Exit(2)
	}
	direct := newDirectRunner()
	var ratios []float64
	for r := range *rounds {
		ms := direct.time(*steps)
		res, err := bench.StepTime(context.Background(), "lstm", "libtorch", batch, 3, *steps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "interleave:", err)
			os.Exit(1)
		}
		k := float64(res.PerStep.Microseconds()) / 1000
		fmt.Printf("round %d: direct gotch %.2f ms, kerasgo %.2f ms, ratio %.2f\n", r+1, ms, k, k/ms)
		if r > 0 {
			ratios = append(ratios, k/ms)
		}
	}
	slices.Sort(ratios)
	fmt.Printf("model=lstm batch=%d steps=%d rounds=%d median_ratio=%.3f min=%.2f max=%.2f\n",
		batch, *steps, *rounds, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
}

// serveDirect times the direct step in chunks of steps, one for each line
// read from standard input, after the engine is open and "ready" printed.
func serveDirect(steps int) {
	if _, err := libtorch.Open("cpu"); err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
	direct := newDirectRunner()
	fmt.Println("ready")
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		fmt.Printf("impl=%s model=lstm batch=%d steps=%d ms_per_step=%.2f\n", implName(), batch, steps, direct.time(steps))
	}
	if err := lines.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
}

// directRunner runs the direct step on the engine's op thread
// (libtorch.OnOpThread): libtorch's grad mode is per thread, and a second
// thread would get a second OpenMP team, which slows both.
type directRunner struct{}

func newDirectRunner() directRunner {
	if err := libtorch.OnOpThread(func() error { setUp(); return nil }); err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
	return directRunner{}
}

// time runs 3 untimed steps and then steps timed ones, and returns the
// milliseconds per timed step.
func (directRunner) time(steps int) float64 {
	var ms float64
	err := libtorch.OnOpThread(func() error {
		for i := range 3 {
			step(i)
		}
		start := time.Now()
		for i := range steps {
			step(3 + i)
		}
		ms = float64(time.Since(start).Microseconds()) / 1000 / float64(steps)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
	return ms
}

var step func(i int)

// kerasLoss: the direct step's loss as Keras defines it for a softmax
// output (-log of the target's probability, normalised and clipped to
// [1e-7, 1-1e-7]), the ops kerasgo's step runs, instead of libtorch's
// fused cross-entropy on the logits.
var kerasLoss bool

// clippedLogits: the same loss from the logits, fused: log_softmax,
// clamp, nll_loss.
var clippedLogits bool

// setUp builds the direct model and its data, and sets step.
func setUp() {
	vs := nn.NewVarStore(gotch.CPU)
	root := vs.Root()
	// PyTorch's parameter layout: input and recurrent weights with the
	// gates (i, f, g, o) as rows, two biases.
	params := []*ts.Tensor{
		root.MustRandn("w_ih", []int64{4 * units, features}, 0, 0.1),
		root.MustRandn("w_hh", []int64{4 * units, units}, 0, 0.1),
		root.MustZeros("b_ih", []int64{4 * units}),
		root.MustZeros("b_hh", []int64{4 * units}),
	}
	head := nn.NewLinear(root, units, classes, nn.DefaultLinearConfig())
	opt, err := nn.DefaultAdamConfig().Build(vs, 1e-3)
	if err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
	const n = 640
	r := rand.New(rand.NewPCG(1, 1))
	xs := make([]float32, n*timesteps*features)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]int64, n)
	for i := range ys {
		ys[i] = int64(r.IntN(classes))
	}
	x := ts.MustOfSlice(xs).MustView([]int64{n, timesteps, features}, true)
	y := ts.MustOfSlice(ys)
	noWeight := ts.NewTensor() // nll_loss's weight: none
	step = func(i int) {
		at := int64(i%(n/batch)) * batch
		xb := x.MustNarrow(0, at, batch, false)
		yb := y.MustNarrow(0, at, batch, false)
		h0 := ts.MustZeros([]int64{1, batch, units}, gotch.Float, gotch.CPU)
		c0 := ts.MustZeros([]int64{1, batch, units}, gotch.Float, gotch.CPU)
		out, hn, cn := ts.MustLstm(xb, []*ts.Tensor{h0, c0}, params, true, 1, 0, true, false, true)
		last := out.MustSelect(1, timesteps-1, false)
		logits := head.Forward(last)
		var loss *ts.Tensor
		switch {
		case kerasLoss:
			loss = kerasCrossentropy(logits, yb)
		case clippedLogits:
			lp := logits.MustLogSoftmax(-1, gotch.Float, false).MustClamp(ts.FloatScalar(math.Log(1e-7)), ts.FloatScalar(math.Log1p(-1e-7)), true)
			loss = lp.MustNllLoss(yb, noWeight, 1, -100, true)
		default:
			loss = logits.CrossEntropyForLogits(yb)
		}
		opt.BackwardStep(loss)
		_ = loss.Float64Values()[0]
		correct := logits.MustArgmax([]int64{-1}, false, false).MustEqTensor(yb, true).MustSum(gotch.Float, true)
		_ = correct.Float64Values()[0]
		for _, t := range []*ts.Tensor{xb, yb, h0, c0, out, hn, cn, last, logits, loss, correct} {
			t.MustDrop()
		}
	}
}

// kerasCrossentropy is Keras's sparse categorical cross-entropy of softmax
// probabilities, op for op as keras/losses builds it: softmax, the sum
// over classes, the target's probability divided by it, clipped, log,
// negated, averaged over the batch.
func kerasCrossentropy(logits, y *ts.Tensor) *ts.Tensor {
	p := logits.MustSoftmax(-1, gotch.Float, false)
	sum := p.MustSumDimIntlist([]int64{-1}, false, gotch.Float, false)
	col := y.MustUnsqueeze(-1, false)
	picked := p.MustGather(1, col, false, false).MustSqueezeDim(1, true)
	clipped := picked.MustDiv(sum, true).MustClampMin(ts.FloatScalar(1e-7), true).MustClampMax(ts.FloatScalar(1-1e-7), true)
	loss := clipped.MustLog(true).MustNeg(true).MustMean(gotch.Float, true)
	for _, t := range []*ts.Tensor{p, sum, col} {
		t.MustDrop()
	}
	return loss
}

func implName() string {
	switch {
	case kerasLoss:
		return "gotch-direct-keras-loss"
	case clippedLogits:
		return "gotch-direct-clipped-logits"
	}
	return "gotch-direct"
}
