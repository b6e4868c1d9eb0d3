// Command gomlx times the demo's MLP and CNN written with GoMLX's own API
// (github.com/gomlx/gomlx) on its pure-Go backend ("go", simplego), the
// same way bench/stepbench times kerasgo: random data, Adam (learning rate
// 1e-3, epsilon 1e-7), sparse categorical cross-entropy on logits and the
// accuracy read back every step, untimed warm-up steps that compile the
// step, then the mean of the timed ones. It prints one line for
// scripts/bench.sh:
//
//	cd bench/gomlx && go run . -model cnn -steps 8
//
// It is its own Go module so that GoMLX stays out of kerasgo's go.mod:
// it is a benchmark reference, not a dependency.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/layers/activations"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/metrics"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
)

func main() {
	model := flag.String("model", "mlp", "mlp or cnn (the demo's models)")
	batch := flag.Int("batch", 128, "batch size")
	warmup := flag.Int("warmup", 3, "untimed steps first (they compile)")
	steps := flag.Int("steps", 20, "timed steps")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file, for go tool pprof")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gomlx bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*model, *batch, *warmup, *steps); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "gomlx bench:", err)
		os.Exit(1)
	}
}

// mlp is the demo's MLP: Flatten, Dense(512, relu), Dense(512, relu),
// Dense(10) (logits; the loss applies the softmax).
func mlp(ctx *context.Context, _ any, inputs []*graph.Node) []*graph.Node {
	x := graph.Reshape(inputs[0], inputs[0].Shape().Dimensions[0], -1)
	x = activations.Relu(layers.Dense(ctx.In("dense1"), x, true, 512))
	x = activations.Relu(layers.Dense(ctx.In("dense2"), x, true, 512))
	return []*graph.Node{layers.Dense(ctx.In("logits"), x, true, 10)}
}

// cnn is the demo's CNN, the classic Keras MNIST convnet: Conv2D(32, 3,
// relu), Conv2D(64, 3, relu) ("valid"), MaxPooling2D(2), Dropout(0.25),
// Flatten, Dense(128, relu), Dropout(0.5), Dense(10). simplego (v0.26.0)
// cannot train it yet: it has no gradient for MaxPool (op
// "SelectAndScatterMax") nor for the convolution (op "Reverse"; found by
// writing the pooling as a ReduceMax over 2x2 windows), and says so.
func cnn(ctx *context.Context, _ any, inputs []*graph.Node) []*graph.Node {
	x := inputs[0]
	x = activations.Relu(layers.Convolution(ctx.In("conv1"), x).Channels(32).KernelSize(3).NoPadding().Done())
	x = activations.Relu(layers.Convolution(ctx.In("conv2"), x).Channels(64).KernelSize(3).NoPadding().Done())
	x = graph.MaxPool(x).Window(2).Done()
	x = layers.DropoutStatic(ctx.In("drop1"), x, 0.25)
	x = graph.Reshape(x, x.Shape().Dimensions[0], -1)
	x = activations.Relu(layers.Dense(ctx.In("dense1"), x, true, 128))
	x = layers.DropoutStatic(ctx.In("drop2"), x, 0.5)
	return []*graph.Node{layers.Dense(ctx.In("logits"), x, true, 10)}
}

func run(model string, batch, warmup, steps int) error {
	var fn train.ModelFn
	switch model {
	case "mlp":
		fn = mlp
	case "cnn":
		fn = cnn
	default:
		return fmt.Errorf("unknown model %q: GoMLX's rows are the demo's mlp and cnn", model)
	}
	backend, err := backends.NewWithConfig("go")
	if err != nil {
		return err
	}
	ctx := context.New()
	opt := optimizers.Adam().LearningRate(1e-3).Epsilon(1e-7).Done()
	accuracy := metrics.NewSparseCategoricalAccuracy("accuracy", "acc")
	trainer := train.NewTrainer(backend, ctx, fn, losses.SparseCategoricalCrossEntropyLogits,
		opt, []metrics.Interface{accuracy}, nil)

	// Random images in [0, 1) and labels, batch after batch, as stepbench's.
	rng := rand.New(rand.NewPCG(1, 2))
	n := batch * (warmup + steps)
	images := make([]float32, n*28*28)
	for i := range images {
		images[i] = rng.Float32()
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(rng.IntN(10))
	}
	step := func(i int) error {
		x := tensors.FromFlatDataAndDimensions(images[i*batch*784:(i+1)*batch*784], batch, 28, 28, 1)
		y := tensors.FromFlatDataAndDimensions(labels[i*batch:(i+1)*batch], batch, 1)
		ms, err := trainer.TrainStep(nil, []*tensors.Tensor{x}, []*tensors.Tensor{y})
		if err != nil {
			return err
		}
		// The loss and the accuracy back on the host, as every row reads them.
		for _, m := range ms {
			_ = m.Value()
		}
		return nil
	}
	start := time.Now()
	for i := 0; i < warmup; i++ {
		if err := step(i); err != nil {
			return err
		}
	}
	warm := time.Since(start)
	start = time.Now()
	for i := warmup; i < warmup+steps; i++ {
		if err := step(i); err != nil {
			return err
		}
	}
	per := time.Since(start) / time.Duration(steps)
	fmt.Printf("impl=gomlx-go model=%s batch=%d steps=%d threads=%d ms_per_step=%.2f peak_rss_mb=%.0f warmup_with_compile_ms=%.0f\n",
		model, batch, steps, runtime.GOMAXPROCS(0), float64(per.Microseconds())/1000, peakRSSMB(), float64(warm.Milliseconds()))
	return nil
}

// peakRSSMB is the process's peak resident set size (VmHWM) in MB, 0 where
// /proc is not there.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			var kb float64
			fmt.Sscan(f[1], &kb)
			return kb / 1024
		}
	}
	return 0
}
