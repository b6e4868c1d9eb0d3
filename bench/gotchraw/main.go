//go:build libtorch

// Command gotchraw is the reference for the libtorch engine's benchmark: the
// demo's MLP and CNN written directly against gotch (its nn package, Adam,
// cross-entropy on logits), the way a Go programmer would without kerasgo.
// Like kerasgo's step, each step reads the loss and the number of correct
// predictions back to the host. It prints one line for scripts/bench.sh.
package main

// extern void at_set_num_threads(int);
import "C"

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/kerasgo/kerasgo/bench"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
	"github.com/sugarme/gotch/ts"
)

type model interface {
	forward(x *ts.Tensor, train bool) *ts.Tensor
}

type mlp struct{ l1, l2, l3 *nn.Linear }

func (m mlp) forward(x *ts.Tensor, _ bool) *ts.Tensor {
	flat := x.MustView([]int64{-1, 784}, false)
	h1 := m.l1.Forward(flat).MustRelu(true)
	h2 := m.l2.Forward(h1).MustRelu(true)
	h1.MustDrop()
	out := m.l3.Forward(h2)
	h2.MustDrop()
	flat.MustDrop()
	return out
}

type cnn struct {
	c1, c2 *nn.Conv2D
	f1, f2 *nn.Linear
}

func (m cnn) forward(x *ts.Tensor, train bool) *ts.Tensor {
	a := m.c1.Forward(x).MustRelu(true)
	b := m.c2.Forward(a).MustRelu(true)
	a.MustDrop()
	p := b.MustMaxPool2d([]int64{2, 2}, []int64{2, 2}, []int64{0, 0}, []int64{1, 1}, false, true)
	d := ts.MustDropout(p, 0.25, train)
	p.MustDrop()
	f := d.MustFlatten(1, -1, true)
	h := m.f1.Forward(f).MustRelu(true)
	f.MustDrop()
	h2 := ts.MustDropout(h, 0.5, train)
	h.MustDrop()
	out := m.f2.Forward(h2)
	h2.MustDrop()
	return out
}

func main() {
	which := flag.String("model", "mlp", "mlp or cnn")
	batch := flag.Int("batch", 128, "batch size")
	warmup := flag.Int("warmup", 3, "untimed steps")
	steps := flag.Int("steps", 20, "timed steps")
	flag.Parse()
	C.at_set_num_threads(C.int(runtime.GOMAXPROCS(0)))
	vs := nn.NewVarStore(gotch.CPU)
	var m model
	switch *which {
	case "mlp":
		m = mlp{nn.NewLinear(vs.Root(), 784, 512, nn.DefaultLinearConfig()), nn.NewLinear(vs.Root(), 512, 512, nn.DefaultLinearConfig()), nn.NewLinear(vs.Root(), 512, 10, nn.DefaultLinearConfig())}
	case "cnn":
		m = cnn{nn.NewConv2D(vs.Root(), 1, 32, 3, nn.DefaultConv2DConfig()), nn.NewConv2D(vs.Root(), 32, 64, 3, nn.DefaultConv2DConfig()),
			nn.NewLinear(vs.Root(), 9216, 128, nn.DefaultLinearConfig()), nn.NewLinear(vs.Root(), 128, 10, nn.DefaultLinearConfig())}
	default:
		fmt.Fprintln(os.Stderr, "unknown model", *which)
		os.Exit(2)
	}
	opt, err := nn.DefaultAdamConfig().Build(vs, 1e-3)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n := *batch * (*warmup + *steps)
	r := rand.New(rand.NewPCG(1, 1))
	xs := make([]float32, n*784)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]int64, n)
	for i := range ys {
		ys[i] = int64(r.IntN(10))
	}
	x := ts.MustOfSlice(xs).MustView([]int64{int64(n), 1, 28, 28}, true)
	y := ts.MustOfSlice(ys)
	step := func(i int) {
		xb := x.MustNarrow(0, int64(i**batch), int64(*batch), false)
		yb := y.MustNarrow(0, int64(i**batch), int64(*batch), false)
		logits := m.forward(xb, true)
		loss := logits.CrossEntropyForLogits(yb)
		opt.BackwardStep(loss)
		_ = loss.Float64Values()[0]
		correct := logits.MustArgmax([]int64{-1}, false, false).MustEqTensor(yb, true).MustSum(gotch.Float, true)
		_ = correct.Float64Values()[0]
		for _, t := range []*ts.Tensor{xb, yb, logits, loss, correct} {
			t.MustDrop()
		}
	}
	for i := 0; i < *warmup; i++ {
		step(i)
	}
	start := time.Now()
	for i := *warmup; i < *warmup+*steps; i++ {
		step(i)
	}
	per := time.Since(start) / time.Duration(*steps)
	fmt.Printf("impl=gotch-raw model=%s batch=%d steps=%d threads=%d ms_per_step=%.2f peak_rss_mb=%.0f\n",
		*which, *batch, *steps, runtime.GOMAXPROCS(0), float64(per.Microseconds())/1000, float64(bench.PeakRSS())/(1<<20))
}
