package metrics_test

import (
	"strings"
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

func TestMeanIsStateful(t *testing.T) {
	var m metrics.Mean
	m.Update(3, 4)
	m.Update(1, 4)
	if m.Result() != 0.5 {
		t.Errorf("mean = %v, want 0.5", m.Result())
	}
	m.Reset()
	if m.Result() != 0 {
		t.Errorf("after Reset mean = %v", m.Result())
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
