package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/bench"
	"github.com/kerasgo/kerasgo/keras"
)

// slowPages is a keras.Dataset over arrays in memory whose every batch
// takes load to make, as reading and decoding files would.
type slowPages struct {
	x, y  keras.Array
	batch int
	load  time.Duration
}

func (p slowPages) Len() int { return p.x.Samples() / p.batch }

func (p slowPages) Batch(ctx context.Context, i int) (keras.Batch, error) {
	select {
	case <-time.After(p.load):
	case <-ctx.Done():
		return keras.Batch{}, ctx.Err()
	}
	return keras.Batch{X: p.x.Rows(i*p.batch, (i+1)*p.batch), Y: p.y.Rows(i*p.batch, (i+1)*p.batch)}, nil
}

// BenchmarkFitFromDataset measures an epoch of the demo MLP (20 batches
// of 128) on the pure-Go engine from arrays in memory, and from a Dataset
// whose batches take 4 ms each to load, with 1 and 4 loading goroutines:
//
//	go test -run '^$' -bench FitFromDataset ./bench/
//
// Loading 20 batches one after another takes 80 ms; the rows say how much
// of it the prefetching hides behind the engine's steps (an epoch of
// "arrays" plus 80 ms is what loading without prefetch would cost).
func BenchmarkFitFromDataset(b *testing.B) {
	const batches, batch = 20, 128
	x, y := bench.Data(batches*batch, 1)
	sources := []struct {
		name string
		x    keras.ArraySet
		opts keras.FitOptions
	}{
		{"arrays", x, keras.FitOptions{BatchSize: batch}},
		{"dataset/workers=1", keras.Batches{Dataset: slowPages{x, y, batch, 4 * time.Millisecond}, Workers: 1}, keras.FitOptions{}},
		{"dataset/workers=4", keras.Batches{Dataset: slowPages{x, y, batch, 4 * time.Millisecond}, Workers: 4}, keras.FitOptions{}},
	}
	for _, s := range sources {
		b.Run(s.name, func(b *testing.B) {
			m, err := bench.Compiled("mlp", "gorgonia")
			if err != nil {
				b.Fatal(err)
			}
			var yy keras.ArraySet
			if _, ok := s.x.(keras.Array); ok {
				yy = y
			}
			opts := s.opts
			opts.Epochs, opts.Verbose, opts.NoShuffle = 1, keras.Silent, true
			if _, err := m.Fit(context.Background(), s.x, yy, opts); err != nil { // compile outside the timer
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := m.Fit(context.Background(), s.x, yy, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/epoch")
		})
	}
}
