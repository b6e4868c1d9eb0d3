package bench_test

import (
	"context"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/bench"
	"github.com/kerasgo/kerasgo/keras"
)

// benchmarkStep times one training step (batch 128) of a demo model; run
// with `make bench-go` or go test -bench, and compare runs with benchstat.
func benchmarkStep(b *testing.B, model string) {
	m, err := bench.Compiled(model, "")
	if err != nil {
		b.Fatal(err)
	}
	x, y := bench.Data(128, 1)
	ctx := context.Background()
	opts := keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 128, NoShuffle: true}
	if _, err := m.Fit(ctx, x, y, opts); err != nil { // compile outside the timer
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Fit(ctx, x, y, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMLPStep(b *testing.B) { benchmarkStep(b, "mlp") }
func BenchmarkCNNStep(b *testing.B) { benchmarkStep(b, "cnn") }

// The small ResNet's step (batch 128 here, 64 in make bench): with
// -trace, `go tool trace` shows when the second core waits.
func BenchmarkResNetStep(b *testing.B) { benchmarkStep(b, "resnet") }

// TestStepTimeRuns keeps the benchmark harness working: a tiny run must
// produce a positive step time and a peak RSS.
func TestStepTimeRuns(t *testing.T) {
	r, err := bench.StepTime(context.Background(), "mlp", "gorgonia", 8, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.PerStep <= 0 || r.PeakRSS <= 0 || r.Steps != 2 {
		t.Errorf("result %+v", r)
	}
}

// TestStepperTimesChunks keeps stepbench -serve working: one compiled
// model times chunk after chunk, each of the steps asked for.
func TestStepperTimesChunks(t *testing.T) {
	ctx := context.Background()
	s, err := bench.NewStepper(ctx, "mlp", "gorgonia", "", 8, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for chunk := range 2 {
		r, err := s.Time(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.PerStep <= 0 || r.Steps != 3 || r.Batch != 8 || r.Model != "mlp" || r.Engine != "gorgonia" {
			t.Errorf("chunk %d: result %+v", chunk, r)
		}
	}
}
