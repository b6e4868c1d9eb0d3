//go:build libtorch

// Command opcost measures what one small op costs on the libtorch engine,
// through kerasgo's Builder (a program of k chained ops on 0-dimensional
// tensors, run again and again) and through gotch directly on the
// engine's op thread. Networks made of many small ops (the LSTM(64)
// classifier's step has about 80 besides its lstm op and backward) pay
// this per op; the difference between the two rows is kerasgo's own part.
//
//	go run -tags=libtorch -modfile=build/gotch-pypi/go.mod -overlay=build/gotch-pypi/overlay.json ./bench/opcost
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

func main() {
	k := flag.Int("ops", 200, "ops in each program")
	runs := flag.Int("runs", 200, "timed runs of each program")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	be, err := libtorch.Open("cpu")
	if err != nil {
		fail(err)
	}
	for _, c := range []struct {
		name string
		op   func(b backend.Builder, v, w backend.Value) backend.Value
	}{
		{"Mul(v, w)", func(b backend.Builder, v, w backend.Value) backend.Value { return b.Mul(v, w) }},
		{"Mul(v, Scalar(c))", func(b backend.Builder, v, _ backend.Value) backend.Value { return b.Mul(v, b.Scalar(0.999)) }},
		{"Sub(Scalar(c), v)", func(b backend.Builder, v, _ backend.Value) backend.Value { return b.Sub(b.Scalar(1), v) }},
		{"Sqrt(v)", func(b backend.Builder, v, _ backend.Value) backend.Value { return b.Sqrt(v) }},
	} {
		per, err := builderCost(be, *k, *runs, c.op)
		if err != nil {
			fail(err)
		}
		fmt.Printf("kerasgo Builder  %-18s %6.2f µs/op\n", c.name, per)
	}
	adam, err := adamCost(be, *runs)
	if err != nil {
		fail(err)
	}
	fmt.Printf("kerasgo Builder  %-18s %6.2f µs/step (Adam on the LSTM(64) benchmark's 5 variables)\n", "AdamUpdate x5", adam)
	for _, c := range []struct {
		name string
		op   func(x, y *ts.Tensor, s *ts.Scalar) (*ts.Tensor, error)
	}{
		{"mul(x, y)", func(x, y *ts.Tensor, _ *ts.Scalar) (*ts.Tensor, error) { return x.Mul(y, false) }},
		{"mul(x, scalar)", func(x, _ *ts.Tensor, s *ts.Scalar) (*ts.Tensor, error) { return x.MulScalar(s, false) }},
		{"sqrt(x)", func(x, _ *ts.Tensor, _ *ts.Scalar) (*ts.Tensor, error) { return x.Sqrt(false) }},
	} {
		per, err := gotchCost(*k**runs, c.op)
		if err != nil {
			fail(err)
		}
		fmt.Printf("gotch directly   %-18s %6.2f µs/op\n", c.name, per)
	}
}

// builderCost returns the microseconds per op of a program of k ops op
// chained on a 0-dimensional float32 tensor, over runs runs after 20
// untimed ones (the Run, its upload-free inputs and its output's release
// included, spread over the k ops).
func builderCost(be backend.Backend, k, runs int, op func(b backend.Builder, v, w backend.Value) backend.Value) (float64, error) {
	fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		v := in[0]
		for range k {
			v = op(b, v, in[1])
		}
		return []backend.Value{v}, nil
	}
	scalar := backend.Spec{Shape: backend.Shape{}}
	exe, err := be.Compile(fn, []backend.Spec{scalar, scalar}, backend.CompileOptions{})
	if err != nil {
		return 0, err
	}
	x, err := be.FromFloat32([]float32{1}, backend.Shape{})
	if err != nil {
		return 0, err
	}
	y, err := be.FromFloat32([]float32{0.5}, backend.Shape{})
	if err != nil {
		return 0, err
	}
	defer be.Release(x, y)
	perRun, err := timeRuns(be, exe, []backend.Tensor{x, y}, runs)
	return perRun / float64(k), err
}

// timeRuns returns the microseconds per Run of exe on inputs, over runs
// runs after 20 untimed ones, each run's outputs released.
func timeRuns(be backend.Backend, exe backend.Executable, inputs []backend.Tensor, runs int) (float64, error) {
	run := func() error {
		out, err := exe.Run(inputs)
		be.Release(out...)
		return err
	}
	for range 20 {
		if err := run(); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range runs {
		if err := run(); err != nil {
			return 0, err
		}
	}
	return float64(time.Since(start).Nanoseconds()) / 1000 / float64(runs), nil
}

// lstmVariables are the shapes of the LSTM(64) benchmark model's
// variables (bench.Compiled("lstm")): the LSTM's kernel, recurrent kernel
// and bias over 8 features, the Dense(10) head's kernel and bias.
var lstmVariables = []backend.Shape{{8, 256}, {64, 256}, {256}, {64, 10}, {10}}

// adamSteps is how many Adam steps one program of adamCost chains, so
// that the Run's hand-off to the op thread (tens of µs on 2 cores) does
// not swamp the updates.
const adamSteps = 20

// adamCost returns the microseconds per Adam step (Builder.AdamUpdate for
// each of lstmVariables) of a program that chains adamSteps of them, over
// runs runs after 20 untimed ones; each run's outputs are released, so
// that the next run writes its last step into them (spare buffers), as a
// training step does.
func adamCost(be backend.Backend, runs int) (float64, error) {
	n := len(lstmVariables)
	fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		alpha := in[4*n]
		var out []backend.Value
		for i := range n {
			p, m, v := in[4*i], in[4*i+2], in[4*i+3]
			for range adamSteps {
				p, m, v = b.AdamUpdate(p, in[4*i+1], m, v, alpha, 0.9, 0.999, 1e-7)
			}
			out = append(out, p, m, v)
		}
		return out, nil
	}
	var specs []backend.Spec
	var inputs []backend.Tensor
	for _, s := range lstmVariables {
		for k := range 4 { // p, g, m, v
			data := make([]float32, s.Size())
			for j := range data {
				data[j] = 0.01 * float32(k+1)
			}
			t, err := be.FromFloat32(data, s)
			if err != nil {
				return 0, err
			}
			specs, inputs = append(specs, backend.Spec{Shape: s}), append(inputs, t)
		}
	}
	alpha, err := be.FromFloat32([]float32{1e-3}, backend.Shape{})
	if err != nil {
		return 0, err
	}
	specs, inputs = append(specs, backend.Spec{Shape: backend.Shape{}}), append(inputs, alpha)
	defer be.Release(inputs...)
	exe, err := be.Compile(fn, specs, backend.CompileOptions{})
	if err != nil {
		return 0, err
	}
	perRun, err := timeRuns(be, exe, inputs, runs)
	return perRun / adamSteps, err
}

// gotchCost returns the microseconds per call of op on a 0-dimensional
// float32 tensor, its result dropped, over n calls on the engine's op
// thread after 2,000 untimed ones.
func gotchCost(n int, op func(x, y *ts.Tensor, s *ts.Scalar) (*ts.Tensor, error)) (float64, error) {
	var per float64
	err := libtorch.OnOpThread(func() error {
		x, err := ts.Ones([]int64{1}, gotch.Float, gotch.CPU)
		if err != nil {
			return err
		}
		defer x.MustDrop()
		x0, err := x.Squeeze(false) // 0-dimensional, as the Builder's
		if err != nil {
			return err
		}
		defer x0.MustDrop()
		s := ts.FloatScalar(0.999)
		defer s.MustDrop()
		call := func() error {
			t, err := op(x0, x0, s)
			if err != nil {
				return err
			}
			return t.Drop()
		}
		for range 2000 {
			if err := call(); err != nil {
				return err
			}
		}
		start := time.Now()
		for range n {
			if err := call(); err != nil {
				return err
			}
		}
		per = float64(time.Since(start).Nanoseconds()) / 1000 / float64(n)
		return nil
	})
	return per, err
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "opcost:", err)
	os.Exit(1)
}
