package metrics_test

import (
	"strings"
	"sync"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/metrics"
)

func arr(shape []int, data ...float64) backendtest.Array {
	return backendtest.Array{Shape: backend.Shape(shape), Data: data}
}

func TestAccuracies(t *testing.T) {
	pred := arr([]int{4, 3}, 0.7, 0.2, 0.1, 0.1, 0.3, 0.6, 0.5, 0.4, 0.1, 0.2, 0.5, 0.3)
	cases := []struct {
		metric      metrics.Sample
		yTrue, pred backendtest.Array
		want        []float64
	}{
		{metrics.CategoricalAccuracy{}, arr([]int{4, 3}, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0), pred, []float64{1, 1, 0, 1}},
		{metrics.SparseCategoricalAccuracy{}, arr([]int{4}, 0, 2, 1, 1), pred, []float64{1, 1, 0, 1}},
		{metrics.SparseCategoricalAccuracy{}, arr([]int{4, 1}, 0, 1, 0, 1), pred, []float64{1, 0, 1, 1}},
		{metrics.BinaryAccuracy{}, arr([]int{2, 2}, 1, 0, 0, 1), arr([]int{2, 2}, 0.9, 0.6, 0.4, 0.3), []float64{0.5, 0.5}},
		{metrics.BinaryAccuracy{Threshold: 0.2}, arr([]int{2, 2}, 1, 0, 0, 1), arr([]int{2, 2}, 0.9, 0.1, 0.4, 0.3), []float64{1, 0.5}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{c.metric.Compute(b, v[0], v[1])}, nil
			}, []backendtest.Array{c.yTrue, c.pred})
			if err != nil {
				t.Fatal(err)
			}
			backendtest.AssertClose(t, c.metric.Name(), got[0], arr([]int{len(c.want)}, c.want...), 1e-6)
		}
	})
}

// Mean and Sum are Keras's trackers: weighted as update_state(values,
// sample_weight), reset by ResetState, safe from several goroutines, and
// refused by Compile's check with the way to use them.
func TestMeanAndSumTrackValues(t *testing.T) {
	var m metrics.Mean
	var s metrics.Sum
	for _, err := range []error{m.UpdateState([]float64{1, 2, 3}, nil), m.UpdateState([]float64{4}, []float64{3}),
		s.UpdateState([]float64{1, 2}, []float64{2, 0.5}), s.UpdateState([]float64{1}, nil)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := m.Result(), (1+2+3+4*3)/6.0; got != want {
		t.Errorf("mean = %v, want %v", got, want)
	}
	if got := s.Result(); got != 4 {
		t.Errorf("sum = %v, want 4", got)
	}
	if err := m.UpdateState([]float64{1, 2}, []float64{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "3 weights for 2 values") {
		t.Errorf("bad weights: %v", err)
	}
	m.ResetState()
	if m.Result() != 0 {
		t.Errorf("after ResetState mean = %v", m.Result())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				m.UpdateState([]float64{2}, nil)
				s.UpdateState([]float64{1}, nil)
			}
		}()
	}
	wg.Wait()
	if m.Result() != 2 || s.Result() != 804 {
		t.Errorf("after concurrent updates: mean %v (want 2), sum %v (want 804)", m.Result(), s.Result())
	}
	if err := metrics.Check(&m, backend.Shape{-1, 1}); err == nil || !strings.Contains(err.Error(), "a tracker you update yourself") {
		t.Errorf("Check(Mean): %v", err)
	}
}

func TestGetResolvesAccuracyLikeKeras(t *testing.T) {
	cases := []struct {
		yTrue, yPred backend.Shape
		want         string
	}{
		{backend.Shape{-1, 10}, backend.Shape{-1, 10}, "metrics.CategoricalAccuracy"},
		{backend.Shape{-1}, backend.Shape{-1, 10}, "metrics.SparseCategoricalAccuracy"},
		{backend.Shape{-1, 1}, backend.Shape{-1, 10}, "metrics.SparseCategoricalAccuracy"},
		{backend.Shape{-1, 1}, backend.Shape{-1, 1}, "metrics.BinaryAccuracy"},
		{backend.Shape{-1}, backend.Shape{-1, 1}, "metrics.BinaryAccuracy"},
		{backend.Shape{-1, 3}, backend.Shape{-1, 3}, "metrics.CategoricalAccuracy"}, // Keras 3, even for multi-label
	}
	for _, c := range cases {
		m, err := metrics.Get("accuracy", c.yTrue, c.yPred)
		if err != nil {
			t.Fatal(err)
		}
		if got := typeName(m); got != c.want || m.Name() != "accuracy" {
			t.Errorf("accuracy for targets %v and output %v: %s named %q, want %s named accuracy", c.yTrue, c.yPred, got, m.Name(), c.want)
		}
	}
	if _, err := metrics.Get("f1", backend.Shape{-1}, backend.Shape{-1, 1}); err == nil || !strings.Contains(err.Error(), "unknown metric") {
		t.Errorf("unknown metric: %v", err)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case metrics.CategoricalAccuracy:
		return "metrics.CategoricalAccuracy"
	case metrics.SparseCategoricalAccuracy:
		return "metrics.SparseCategoricalAccuracy"
	case metrics.BinaryAccuracy:
		return "metrics.BinaryAccuracy"
	}
	return "?"
}

// The metrics with settings refuse a bad one naming the metric, the
// setting, its value and its range; names that need settings say which.
func TestNewMetricsRefuseBadSettings(t *testing.T) {
	out := backend.Shape{-1, 4}
	for _, c := range []struct {
		m    metrics.Metric
		want string
	}{
		{metrics.PrecisionAtRecall(1.5, 0), "PrecisionAtRecall: recall=1.5 is out of range: it must be in [0, 1]"},
		{metrics.SpecificityAtSensitivity(0.5, -3), "num_thresholds=-3 is out of range"},
		{metrics.TruePositives(2), "the threshold must be in [0, 1], got 2"},
		{metrics.IoU{NumClasses: 3, TargetClassIDs: []int{0, 3}}, "target class id 3 is out of range, which is [0, 3)"},
		{metrics.IoU{NumClasses: 3}, "needs TargetClassIDs"},
		{metrics.OneHotMeanIoU{NumClasses: 1}, "NumClasses must be at least 2"},
		{metrics.BinaryIoU{TargetClassIDs: []int{2}}, "target class id 2 is out of range, which is [0, 2)"},
		{metrics.FBetaScore{Average: "macro", Beta: -1}, "Beta must be > 0"},
		{metrics.FBetaScore{}, "set Average"},
		{metrics.R2Score{ClassAggregation: "median"}, `R2Score.ClassAggregation "median"`},
		{&metrics.Sum{}, "a tracker you update yourself"},
	} {
		if err := metrics.Check(c.m, out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.m.Name(), err, c.want)
		}
	}
	if err := metrics.Check(metrics.R2Score{}, backend.Shape{-1, 2, 3}); err == nil || !strings.Contains(err.Error(), "outputs of shape (batch, outputs)") {
		t.Errorf("R2Score on a sequence output: %v", err)
	}
	if _, err := metrics.Get("mean_io_u", out, out); err == nil || !strings.Contains(err.Error(), "needs settings (num_classes): give metrics.MeanIoU{NumClasses}") {
		t.Errorf("Get(mean_io_u): %v", err)
	}
}
