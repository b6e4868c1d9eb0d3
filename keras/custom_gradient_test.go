package keras_test

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// gradientReversal is domain-adversarial training's layer, written with
// ops.CustomGradient: the identity forward, the gradient negated.
type gradientReversal struct{ layers.Base }

func (*gradientReversal) ClassName() string { return "GradientReversal" }

var reverseGradient = ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
	return xs[0], func(up ops.Value) []ops.Value { return []ops.Value{ops.Negative(b, up)} }
})

func (*gradientReversal) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return reverseGradient(ctx.B, in[0])
}

// A custom gradient inside a layer takes effect in a training step, on
// every engine: one SGD step from the same weights moves the layers
// above a gradient reversal as without it and the layer below it the
// opposite way.
func TestCustomGradientInTraining(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(32)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		build := func(reverse bool) *keras.Model {
			in := layers.Input(6)
			h := layers.Apply(&layers.Dense{Units: 8, Activation: "tanh"}, in)
			if reverse {
				h = layers.Apply(&gradientReversal{}, h)
			}
			m, err := keras.NewModel(in, layers.Apply(&layers.Dense{Units: 3}, h))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.1}, Loss: keras.LossOf(lossFromLogits()),
				Backend: be.Name(), Seed: 1}); err != nil {
				t.Fatal(err)
			}
			return m
		}
		plain, reversed := build(false), build(true)
		start, err := plain.GetWeights()
		if err != nil {
			t.Fatal(err)
		}
		if err := reversed.SetWeights(start); err != nil {
			t.Fatal(err)
		}
		var moved [2][][]float32
		for k, m := range []*keras.Model{plain, reversed} {
			if _, err := m.TrainOnBatch(ctx, x, y, keras.OnBatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if moved[k], err = m.GetWeights(); err != nil {
				t.Fatal(err)
			}
		}
		// weights: the first Dense's kernel and bias, then the second's
		for w := range start {
			sign := 1.0
			if w < 2 {
				sign = -1
			}
			biggest := 0.0
			for i := range start[w] {
				dPlain := float64(moved[0][w][i] - start[w][i])
				dReversed := float64(moved[1][w][i] - start[w][i])
				biggest = math.Max(biggest, math.Abs(dPlain))
				if math.Abs(dReversed-sign*dPlain) > 1e-6 {
					t.Fatalf("weight %d [%d] moved by %g with the reversal, want %g (%g without it)", w, i, dReversed, sign*dPlain, dPlain)
				}
			}
			if biggest < 1e-4 {
				t.Fatalf("weight %d hardly moved (%g): the step did not train it", w, biggest)
			}
		}
	})
}
