package bench_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// lstmModel is LSTM(64) + Dense(1) over sequences of `steps` steps of 8
// features, and one batch of 32 for it.
func lstmModel(b *testing.B, steps int) (*keras.Model, keras.Array, keras.Array) {
	return recurrentModel(b, &layers.LSTM{Units: 64}, steps)
}

// recurrentModel is the recurrent layer + Dense(1) over sequences of
// `steps` steps of 8 features, and one batch of 32 for it.
func recurrentModel(b *testing.B, rnn layers.Layer, steps int) (*keras.Model, keras.Array, keras.Array) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{steps, 8}}, rnn, &layers.Dense{Units: 1})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Seed: 1}); err != nil {
		b.Fatal(err)
	}
	x := keras.Array{Shape: []int{32, steps, 8}, Data: make([]float32, 32*steps*8)}
	for i := range x.Data {
		x.Data[i] = float32(math.Sin(float64(i) * 0.1))
	}
	y := keras.Array{Shape: []int{32, 1}, Data: make([]float32, 32)}
	return m, x, y
}

// BenchmarkLSTMFirstStep times what the unrolled recurrence costs to
// trace and compile: a fresh model's first training step (compile
// included), for 10, 100 and 500 time steps; -benchmem gives the bytes
// allocated. docs/architecture.md quotes it.
func BenchmarkLSTMFirstStep(b *testing.B) {
	for _, steps := range []int{10, 100, 500} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			opts := keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 32, NoShuffle: true}
			for b.Loop() {
				m, x, y := lstmModel(b, steps)
				if _, err := m.Fit(context.Background(), x, y, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLSTMStep times later training steps (compiled once).
func BenchmarkLSTMStep(b *testing.B) {
	benchmarkRecurrentSteps(b, func() layers.Layer { return &layers.LSTM{Units: 64} }, 10, 100, 500)
}

// BenchmarkGRUStep times training steps of GRU(64) + Dense(1) (compiled
// once), as BenchmarkLSTMStep does the LSTM's.
func BenchmarkGRUStep(b *testing.B) {
	benchmarkRecurrentSteps(b, func() layers.Layer { return &layers.GRU{Units: 64} }, 10, 100)
}

// benchmarkRecurrentSteps times training steps of a fresh recurrent
// layer + Dense(1) for each sequence length, after one untimed step that
// compiles.
func benchmarkRecurrentSteps(b *testing.B, rnn func() layers.Layer, lengths ...int) {
	for _, steps := range lengths {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			m, x, y := recurrentModel(b, rnn(), steps)
			opts := keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 32, NoShuffle: true}
			if _, err := m.Fit(context.Background(), x, y, opts); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := m.Fit(context.Background(), x, y, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
