package serving_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serving"
)

// A request that times out stops its engine work between batches and
// frees the model: before, a 5,000-instance LSTM request answered 504
// kept the engine busy for seconds, and a 1-instance request sent after
// it got 504 too (issue 39). The next small request is now answered in a
// fraction of the time the big one would have taken.
func TestTimedOutRequestStopsItsWork(t *testing.T) {
	in := layers.Input(20, 8)
	out := layers.Apply(&layers.Dense{Units: 10}, layers.Apply(&layers.LSTM{Units: 64}, in))
	m := keras.Must(keras.NewModel(in, out))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))
	const rows = 5000
	data := make([]float32, rows*20*8)
	for i := range data {
		data[i] = float32(i%17) / 17
	}
	x := keras.Must(keras.NewArray(data, rows, 20, 8))
	start := time.Now()
	if _, err := m.Predict(context.Background(), x, keras.PredictOptions{BatchSize: 32}); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	timeout := whole / 2
	hs := newServer(t, serving.Options{RequestTimeout: timeout}, map[string]*keras.Model{"lstm": m})

	body := `{"instances": ` + jsonRows3(data, rows, 20) + `}`
	code, res := call(t, "POST", hs.URL+"/v1/models/lstm:predict", body)
	if code != 504 {
		t.Fatalf("the big request got %d %v, want 504 after %v", code, res, timeout)
	}
	sent := time.Now()
	small := `{"instances": ` + jsonRows3(data[:20*8], 1, 20) + `}`
	code, res = call(t, "POST", hs.URL+"/v1/models/lstm:predict", small)
	took := time.Since(sent)
	if code != 200 {
		t.Fatalf("the small request after the timeout got %d %v", code, res)
	}
	// The big request alone takes `whole`; stopped between batches, it
	// holds the worker at most one engine batch longer.
	if took > whole/4 {
		t.Fatalf("the small request took %v after the big one timed out; the big one takes %v in all: it was not stopped", took, whole)
	}
	t.Logf("whole request %v, timeout %v, next small request answered in %v", whole, timeout, took)
}

// jsonRows3 writes samples of (steps, per-step) values as nested lists.
func jsonRows3(data []float32, rows, steps int) string {
	per := len(data) / rows / steps
	var b strings.Builder
	b.WriteByte('[')
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonRows(data[r*steps*per:(r+1)*steps*per], steps))
	}
	b.WriteByte(']')
	return b.String()
}
