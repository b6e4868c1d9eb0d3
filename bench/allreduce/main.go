//go:build libtorch && cgo

// Command allreduce times kerasgo's allreduce (keras/distribution over
// c10d's Gloo) for float32 buffers of several sizes, and the time an
// allreduce adds to a data-parallel MLP training step. Start it with a
// launcher; rank 0 prints one line per measurement:
//
//	kerasgo launch -n 2 ./allreduce -sizes 1,16,64 -iters 20
//
// scripts/bench-allreduce.sh runs it beside bench/allreduce/allreduce.py
// (the same through torch.distributed) and prints the ratios.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
	_ "github.com/kerasgo/kerasgo/keras/distribution/c10d"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

func main() {
	sizes := flag.String("sizes", "1,16,64", "buffer sizes in MB (float32), comma separated")
	iters := flag.Int("iters", 20, "timed allreduces per size (after 3 untimed)")
	mlpSteps := flag.Int("mlp-steps", 30, "timed MLP steps (0: skip the MLP)")
	engine := flag.String("backend", "", "engine for the MLP step")
	flag.Parse()
	if err := run(*sizes, *iters, *mlpSteps, *engine); err != nil {
		fmt.Fprintln(os.Stderr, "allreduce:", err)
		os.Exit(1)
	}
}

func run(sizes string, iters, mlpSteps int, engine string) error {
	dp, err := distribution.NewDataParallel(distribution.Config{})
	if err != nil {
		return err
	}
	defer dp.Close()
	for _, s := range strings.Split(sizes, ",") {
		mb, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || mb <= 0 {
			return fmt.Errorf("-sizes: %q is not a positive number of MB", s)
		}
		buf := make([]float32, mb*1024*1024/4)
		for i := range buf {
			buf[i] = float32(i % 7)
		}
		times := make([]float64, 0, iters)
		for i := range iters + 3 {
			if err := dp.Barrier(); err != nil {
				return err
			}
			start := time.Now()
			if err := dp.AllReduceFloat32(buf); err != nil {
				return err
			}
			if i >= 3 {
				times = append(times, time.Since(start).Seconds()*1000)
			}
		}
		if dp.IsChief() {
			fmt.Printf("allreduce %d MB: %.3f ms (median of %d)\n", mb, median(times), iters)
		}
	}
	if mlpSteps > 0 {
		with, err := mlpStep(dp, engine, mlpSteps)
		if err != nil {
			return err
		}
		alone, err := mlpStep(nil, engine, mlpSteps)
		if err != nil {
			return err
		}
		if dp.IsChief() {
			fmt.Printf("mlp step: %.3f ms data parallel, %.3f ms alone (each of %d processes, batch 128 each)\n", with, alone, dp.WorldSize())
		}
	}
	return nil
}

// mlpStep returns the median time of a training step of the demo's MLP
// (784-512-512-10, batch 128 per process), data parallel with dp or, with
// nil, trained alone in each process at the same time.
func mlpStep(dp *distribution.DataParallel, engine string, steps int) (float64, error) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{784}},
		&layers.Dense{Units: 512, Activation: "relu"},
		&layers.Dense{Units: 512, Activation: "relu"},
		&layers.Dense{Units: 10, Activation: "softmax"})
	if err != nil {
		return 0, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: engine, Seed: 1, Distribution: dp}); err != nil {
		return 0, err
	}
	world := 1
	if dp != nil {
		world = dp.WorldSize()
	}
	n := 128 * (steps + 3) * world
	r := rand.New(rand.NewPCG(1, 2))
	x := keras.Array{Shape: []int{n, 784}, Data: make([]float32, n*784)}
	for i := range x.Data {
		x.Data[i] = r.Float32()
	}
	y := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	for i := range y.Data {
		y.Data[i] = float32(r.IntN(10))
	}
	var times []float64
	var start time.Time
	timer := &callbacks.Lambda{
		TrainBatchBegin: func(int) { start = time.Now() },
		TrainBatchEnd: func(batch int, _ callbacks.Logs) {
			if batch >= 3 {
				times = append(times, time.Since(start).Seconds()*1000)
			}
		},
	}
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 128, NoShuffle: true, Verbose: keras.Silent, Callbacks: []callbacks.Callback{timer}}); err != nil {
		return 0, err
	}
	return median(times), nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
