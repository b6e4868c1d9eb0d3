package bench_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/bench"
	"github.com/kerasgo/kerasgo/keras"
)

// BenchmarkConcurrentPredict measures predictions per second of the demo
// MLP (one request of 8 samples each) with 1, 4 and 16 goroutines calling
// Predict on one model, on each engine:
//
//	go test -run '^$' -bench ConcurrentPredict ./bench/
//
// (`make bench-go` runs it with the others; add the libtorch flags to
// measure that engine). The predictions/s metric of the 4 and 16 rows
// against the 1 row is the speed-up from predicting in parallel.
func BenchmarkConcurrentPredict(b *testing.B) {
	for _, engine := range []string{"gorgonia", "libtorch"} {
		m, err := bench.Compiled("mlp", engine)
		if err != nil {
			b.Logf("%s: %v", engine, err)
			continue
		}
		x, _ := bench.Data(8, 1)
		for _, g := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", engine, g), func(b *testing.B) {
				ctx := context.Background()
				if _, err := m.Predict(ctx, x, keras.PredictOptions{}); err != nil { // compile outside the timer
					b.Fatal(err)
				}
				b.ResetTimer()
				var wg sync.WaitGroup
				per := (b.N + g - 1) / g
				for range g {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range per {
							if _, err := m.Predict(ctx, x, keras.PredictOptions{}); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(per*g)/b.Elapsed().Seconds(), "predictions/s")
			})
		}
	}
}
