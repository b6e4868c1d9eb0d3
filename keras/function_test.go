package keras_test

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// classScore is the sum over the batch of the output's column class.
func classScore(s *keras.Step, preds backend.Value, class int) backend.Value {
	shape := preds.Shape()
	return s.Sum(s.Slice(preds, []int{0, class}, []int{shape[0], 1}))
}

// finiteDiff checks grad (the gradient of f at x) against central
// differences of f, computed by Predict in float32.
func finiteDiff(t *testing.T, what string, x keras.Array, grad []float32, f func(keras.Array) float64) {
	t.Helper()
	const eps = 1e-2
	worst := 0.0
	for i := range x.Data {
		up, down := x, x
		up.Data, down.Data = append([]float32(nil), x.Data...), append([]float32(nil), x.Data...)
		up.Data[i] += eps
		down.Data[i] -= eps
		want := (f(up) - f(down)) / (2 * eps)
		worst = max(worst, math.Abs(want-float64(grad[i])))
	}
	if worst > 2e-3 {
		t.Errorf("%s: the gradient differs from central differences by up to %g", what, worst)
	}
}

// Gradients outside Fit, as Keras's GradientTape: a saliency map (the
// gradient of a class score with respect to the inputs) and grad-CAM's
// gradient with respect to a layer's output (a model returning that
// output beside its prediction), each checked by finite differences.
func TestFunctionGradients(t *testing.T) {
	ctx := context.Background()
	x, _ := smallData(4)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		in := layers.Input(6)
		hiddenL, outL := &layers.Dense{Units: 5, Activation: "tanh"}, &layers.Dense{Units: 3, Activation: "softmax"}
		h := layers.Apply(hiddenL, in)
		out := layers.Apply(outL, h)
		model := keras.Must(keras.NewModel(in, out))
		if err := model.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 5}); err != nil {
			t.Fatal(err)
		}
		score := func(m *keras.Model, a keras.Array) float64 {
			p, err := m.Predict(ctx, a, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := 0.0
			for r := 0; r < p.Shape[0]; r++ {
				s += float64(p.Data[r*3+1])
			}
			return s
		}

		saliency, err := model.NewFunction(func(s *keras.Step, xs []backend.Value) ([]backend.Value, error) {
			preds := s.Call(s.Model(), false, xs...)[0]
			return s.Grad(classScore(s, preds, 1), xs), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		g, err := saliency.Run(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		if !backend.Shape(g[0].Shape).Equal(backend.Shape(x.Shape)) {
			t.Fatalf("saliency shape %v, want the input's %v", g[0].Shape, x.Shape)
		}
		finiteDiff(t, "saliency", x, g[0].Data, func(a keras.Array) float64 { return score(model, a) })

		gradModel := keras.Must(keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{h, out}))
		if err := gradModel.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		gradCAM, err := gradModel.NewFunction(func(s *keras.Step, xs []backend.Value) ([]backend.Value, error) {
			outs := s.Call(s.Model(), false, xs...)
			return []backend.Value{outs[0], s.Grad(classScore(s, outs[1], 1), outs[:1])[0]}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := gradCAM.Run(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		hIn := layers.Input(5)
		head := keras.Must(keras.NewModel(hIn, layers.Apply(outL, hIn)))
		finiteDiff(t, "grad-CAM", res[0], res[1].Data, func(a keras.Array) float64 { return score(head, a) })
	})
}

func TestFunctionErrors(t *testing.T) {
	ctx := context.Background()
	x, _ := smallData(4)
	m := smallMLP(t, false)
	f, err := m.NewFunction(func(s *keras.Step, xs []backend.Value) ([]backend.Value, error) {
		return []backend.Value{s.ComputeLoss(xs, xs, nil)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Run(ctx, x)
	wantErr(t, err, "ComputeLoss needs the model compiled")
	if _, err := m.NewFunction(nil); err == nil {
		t.Error("NewFunction(nil) gave no error")
	}
	// An op's error, then a panic it caused (code that goes on with the
	// failed value's shape): the op's error is the one reported.
	f, err = m.NewFunction(func(s *keras.Step, xs []backend.Value) ([]backend.Value, error) {
		eq := s.Equal(xs[0], s.Constant([]float64{1, 2}, backend.Shape{2}))
		_ = eq.Shape()[3]
		return []backend.Value{eq}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Run(ctx, x)
	wantErr(t, err, "Equal needs operands of one shape")
}
