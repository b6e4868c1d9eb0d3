package losses_test

import (
	"math"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/losses"
)

func arr(shape []int, data ...float64) backendtest.Array {
	return backendtest.Array{Shape: backend.Shape(shape), Data: data}
}

// Reference values computed from the formulas in float64.
func softmaxRow(z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	s := 0.0
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

type lossCase struct {
	name        string
	loss        losses.Loss
	yTrue, pred backendtest.Array
	want        float64
}

func lossCases() []lossCase {
	probs := arr([]int{2, 3}, 0.7, 0.2, 0.1, 0.1, 0.3, 0.6)
	onehot := arr([]int{2, 3}, 1, 0, 0, 0, 0, 1)
	sparse := arr([]int{2}, 0, 2)
	ce := -(math.Log(0.7) + math.Log(0.6)) / 2
	logits := arr([]int{2, 3}, 2, -1, 0.5, 0.3, 0.1, 1.7)
	s0, s1 := softmaxRow(logits.Data[:3]), softmaxRow(logits.Data[3:])
	ceLogits := -(math.Log(s0[0]) + math.Log(s1[2])) / 2
	bin := arr([]int{2, 2}, 0.9, 0.2, 0.4, 0.7)
	binTrue := arr([]int{2, 2}, 1, 0, 0, 1)
	bce := -(math.Log(0.9) + math.Log(0.8) + math.Log(0.6) + math.Log(0.7)) / 4
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	binLogits := arr([]int{2, 2}, 2.2, -1.4, -0.4, 0.8)
	bceLogits := -(math.Log(sig(2.2)) + math.Log(1-sig(-1.4)) + math.Log(1-sig(-0.4)) + math.Log(sig(0.8))) / 4
	mse := ((0.7-1)*(0.7-1) + 0.2*0.2 + 0.1*0.1 + 0.1*0.1 + 0.3*0.3 + (0.6-1)*(0.6-1)) / 6
	mae := (0.3 + 0.2 + 0.1 + 0.1 + 0.3 + 0.4) / 6
	return []lossCase{
		{"categorical", losses.CategoricalCrossentropy{}, onehot, probs, ce},
		{"categoricalLogits", losses.CategoricalCrossentropy{FromLogits: true}, onehot, logits, ceLogits},
		{"sparse", losses.SparseCategoricalCrossentropy{}, sparse, probs, ce},
		{"sparseColumn", losses.SparseCategoricalCrossentropy{}, arr([]int{2, 1}, 0, 2), probs, ce},
		{"sparseLogits", losses.SparseCategoricalCrossentropy{FromLogits: true}, sparse, logits, ceLogits},
		{"binary", losses.BinaryCrossentropy{}, binTrue, bin, bce},
		{"binaryLogits", losses.BinaryCrossentropy{FromLogits: true}, binTrue, binLogits, bceLogits},
		{"mse", losses.MeanSquaredError{}, onehot, probs, mse},
		{"mae", losses.MeanAbsoluteError{}, onehot, probs, mae},
		// Errors -1.5, 0.2 (quadratic) and 2.5, -0.4 with delta 1: 0.5e² or |e| - 0.5.
		{"huber", losses.Huber{}, arr([]int{2, 2}, 0, 1, 3, 0), arr([]int{2, 2}, 1.5, 0.8, 0.5, 0.4), (1.0 + 0.02 + 2.0 + 0.08) / 4},
		{"huberDelta2", losses.Huber{Delta: 2}, arr([]int{2, 2}, 0, 1, 3, 0), arr([]int{2, 2}, 1.5, 0.8, 0.5, 0.4), (1.125 + 0.02 + 2*(2.5-1) + 0.08) / 4},
		{"function", losses.FromFunc(func(b backend.Builder, y, p backend.Value) backend.Value {
			return b.Sum(b.Square(b.Sub(y, p)), 1)
		}), onehot, probs, mse * 3},
	}
}

// TestLosses checks each loss's value against its formula and its gradient
// with respect to the prediction against finite differences, on every
// engine.
func TestLosses(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range lossCases() {
			t.Run(c.name, func(t *testing.T) {
				fn := func(b backend.Builder, v []backend.Value) backend.Value { return c.loss.Compute(b, v[0], v[1]) }
				for _, dt := range []backend.DType{backend.Float64, backend.Float32} {
					got, err := backendtest.Eval(be, dt, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
						return []backend.Value{fn(b, v)}, nil
					}, []backendtest.Array{c.yTrue, c.pred})
					if err != nil {
						t.Fatal(err)
					}
					tol := 1e-9
					if dt == backend.Float32 {
						tol = 1e-5
					}
					backendtest.AssertClose(t, c.loss.Name()+" "+dt.String(), got[0], arr(nil, c.want), tol)
				}
				backendtest.CheckGradient(t, be, fn, []backendtest.Array{c.yTrue, c.pred}, []int{1}, 1e-5)
			})
		}
	})
}

func TestProbabilitiesAreClipped(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{losses.CategoricalCrossentropy{}.Compute(b, v[0], v[1])}, nil
		}, []backendtest.Array{arr([]int{1, 2}, 1, 0), arr([]int{1, 2}, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if want := -math.Log(losses.Epsilon); math.Abs(got[0].Data[0]-want) > 1e-3 {
			t.Errorf("loss of a confident wrong prediction = %v, want -log(epsilon) = %v", got[0].Data[0], want)
		}
	})
}

func TestCheckTargets(t *testing.T) {
	pred := backend.Shape{-1, 10}
	cases := []struct {
		loss  losses.Loss
		y     []float32
		shape backend.Shape
		want  string
	}{
		{losses.SparseCategoricalCrossentropy{}, []float32{3, 10}, backend.Shape{2}, "label 10 at index 1 is out of range"},
		{losses.SparseCategoricalCrossentropy{}, []float32{-1}, backend.Shape{1}, "out of range"},
		{losses.SparseCategoricalCrossentropy{}, []float32{1.5}, backend.Shape{1}, "out of range"},
		{losses.CategoricalCrossentropy{}, []float32{3, 4}, backend.Shape{2}, "sparse_categorical_crossentropy"},
		{losses.BinaryCrossentropy{}, make([]float32, 20), backend.Shape{2, 10}, ""},
		{losses.BinaryCrossentropy{}, append(make([]float32, 19), 2), backend.Shape{2, 10}, "out of range"},
		{losses.MeanSquaredError{}, make([]float32, 4), backend.Shape{2, 2}, "do not match"},
	}
	for _, c := range cases {
		err := c.loss.CheckTargets(c.y, c.shape, pred)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %v: unexpected error %v", c.loss.Name(), c.y, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want one containing %q", c.loss.Name(), c.y, err, c.want)
		}
	}
	if _, err := losses.Get("hinge2"); err == nil || !strings.Contains(err.Error(), "sparse_categorical_crossentropy") {
		t.Errorf("unknown loss: %v", err)
	}
}

// The losses with settings refuse a bad one naming the loss, the setting,
// its value and its range; the sequence and metric-learning losses refuse
// targets of the wrong kind saying what they want.
func TestNewLossesRefuseBadInput(t *testing.T) {
	image, seq := backend.Shape{-1, 4, 4, 1}, backend.Shape{-1, 6, 5}
	cases := []struct {
		loss      losses.Loss
		y         []float32
		ys, preds backend.Shape
		want      string
	}{
		{losses.Dice{Axis: []int{1, 4}}, nil, backend.Shape{2, 4, 4, 1}, image, "losses.Dice: axis [1 4] does not fit the model's output"},
		{losses.Dice{Axis: []int{1, 1}}, nil, backend.Shape{2, 4, 4, 1}, image, "appears twice"},
		{losses.Tversky{Alpha: -0.5, Beta: 1}, nil, backend.Shape{2, 4, 4, 1}, image, "losses.Tversky: alpha=-0.5 is out of range: it must be >= 0"},
		{losses.CategoricalGeneralizedCrossEntropy{Q: 1.5}, []float32{0}, backend.Shape{1}, backend.Shape{-1, 3}, "q=1.5 is out of range: it must be in (0, 1)"},
		{losses.CategoricalGeneralizedCrossEntropy{}, []float32{3}, backend.Shape{1}, backend.Shape{-1, 3}, "label 3 at index 0 is out of range"},
		{losses.Circle{Gamma: -1}, []float32{0, 1}, backend.Shape{2}, backend.Shape{-1, 8}, "gamma=-1 is out of range"},
		{losses.Circle{}, []float32{0, 1}, backend.Shape{2}, backend.Shape{-1, 2, 8}, "end the model with a Dense layer and layers.UnitNormalization"},
		{losses.Circle{}, []float32{0, 1.5}, backend.Shape{2}, backend.Shape{-1, 8}, "label 1.5 at index 1 is not a whole number"},
		{losses.CTC{}, []float32{1, 2}, backend.Shape{2}, seq, "label sequences of shape (batch, max_label_length)"},
		{losses.CTC{}, []float32{1, 2}, backend.Shape{1, 2}, backend.Shape{-1, 5}, "logits of shape (batch, steps, classes)"},
		{losses.CTC{}, []float32{1, 5}, backend.Shape{1, 2}, seq, "label 5 at index 1 is out of range"},
		{losses.CTC{}, []float32{1, 0, 2, 0}, backend.Shape{1, 4}, seq, "sequence 0 has label 2 at position 2 after the blank 0"},
		{losses.CTC{}, []float32{1, 2, 0, 3, 0, 0}, backend.Shape{2, 3}, seq, ""},
	}
	for _, c := range cases {
		err := c.loss.CheckTargets(c.y, c.ys, c.preds)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", c.loss.Name(), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.loss.Name(), err, c.want)
		}
	}
	for _, c := range []struct {
		config map[string]any
		want   string
	}{
		{map[string]any{"class_name": "CategoricalGeneralizedCrossEntropy", "config": map[string]any{"q": 1.0}}, "q must be in the interval (0, 1)"},
		{map[string]any{"class_name": "Dice", "config": map[string]any{"axis": "x"}}, "want null, an integer or a list of integers"},
		{map[string]any{"class_name": "Dice", "config": map[string]any{"axis": []any{}}}, "use null for every axis"},
		{map[string]any{"class_name": "Circle", "config": map[string]any{"margin": 0.0}}, "margin not exactly 0"},
		{map[string]any{"class_name": "Tversky", "config": map[string]any{"alpha": 0.0, "beta": 0.0}}, "alpha and beta both 0"},
	} {
		if _, err := losses.Deserialize(c.config); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Deserialize(%v): error %v, want one containing %q", c.config, err, c.want)
		}
	}
}

// Sample weights scale each sample's loss, and the reductions divide as
// Keras's reduce_values does: by the count of values, by nothing, or by
// the sum of the weights.
func TestReductionsWithSampleWeights(t *testing.T) {
	y := arr([]int{3, 2}, 1, 0, 0.5, 2, -1, 1)
	p := arr([]int{3, 2}, 0, 0, 1, 1, 1, 1)
	w := arr([]int{3}, 2, 0, 0.5)
	per := []float64{(1 + 0) / 2.0, (0.25 + 1) / 2, (4 + 0) / 2}
	weighted := per[0]*2 + per[1]*0 + per[2]*0.5
	for _, c := range []struct {
		r    losses.Reduction
		want float64
	}{{losses.SumOverBatchSize, weighted / 3}, {losses.Sum, weighted}, {losses.MeanWithSampleWeight, weighted / 2.5}} {
		l := losses.Reduced{Loss: losses.MeanSquaredError{}, Reduction: c.r}
		backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
			got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{losses.Reduce(b, l, v[0], v[1], v[2])}, nil
			}, []backendtest.Array{y, p, w})
			if err != nil {
				t.Fatal(err)
			}
			backendtest.AssertClose(t, string(c.r), got[0], arr(nil, c.want), 1e-12)
		})
	}
	bad := losses.Reduced{Loss: losses.MeanSquaredError{}, Reduction: "none"}
	if err := bad.CheckTargets(nil, backend.Shape{-1, 2}, backend.Shape{-1, 2}); err == nil || !strings.Contains(err.Error(), "training needs one number") {
		t.Errorf("reduction none: %v", err)
	}
}
