package keras_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// activityPenalty passes its input through and adds Rate * mean(x^2) to
// the loss (Keras's layer.add_loss in call).
type activityPenalty struct {
	layers.Base
	Rate float64
}

func (*activityPenalty) ClassName() string { return "ActivityPenalty" }

func (*activityPenalty) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("expects 1 input")
	}
	return in[0].Clone(), nil
}

func (p *activityPenalty) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b := ctx.B
	ctx.AddLoss(b.Mul(b.Scalar(p.Rate), b.Mean(b.Square(in[0]))))
	return in[0]
}

// A layer's AddLoss term is part of the loss Evaluate reports (the
// compiled loss plus the term, computed here on the host from the
// predictions and the hidden activations) and of what Fit minimises: a
// large penalty shrinks the activations it penalises.
func TestLayerLossInEvaluateAndFit(t *testing.T) {
	x, y := smallData(64)
	const rate = 0.5
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		in := layers.Input(6)
		hidden := layers.Apply(&layers.Dense{Units: 8, Activation: "tanh"}, in)
		out := layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, layers.Apply(&activityPenalty{Rate: rate}, hidden))
		m, err := keras.NewModel(in, out)
		if err != nil {
			t.Fatal(err)
		}
		features, err := keras.NewModel(in, hidden)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 2}); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		penalty := func() float64 {
			h := mustPredict(t, features, x)
			s := 0.0
			for _, v := range h {
				s += float64(v) * float64(v)
			}
			return rate * s / float64(len(h))
		}
		p := mustPredict(t, m, x)
		ce := 0.0
		for i := range 64 {
			ce -= math.Log(float64(p[i*3+int(y.Data[i])]))
		}
		want := ce/64 + penalty()
		logs, err := m.Evaluate(ctx, x, y, keras.EvaluateOptions{BatchSize: 64, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := logs.Get("loss"); math.Abs(got-want) > 1e-5 {
			t.Fatalf("Evaluate's loss %v, want cross-entropy + penalty = %v", got, want)
		}
		before := penalty()
		big := &activityPenalty{Rate: 50}
		in2 := layers.Input(6)
		// The same hidden layer, now under a heavy penalty.
		m2, err := keras.NewModel(in2, layers.Apply(big, layers.Apply(m.Layers()[1], in2)))
		if err != nil {
			t.Fatal(err)
		}
		if err := m2.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 2}); err != nil {
			t.Fatal(err)
		}
		// The compiled loss pulls the activations towards 1, the penalty
		// towards 0 fifty times harder.
		ones := keras.Array{Shape: []int{64, 8}, Data: make([]float32, 64*8)}
		for i := range ones.Data {
			ones.Data[i] = 1
		}
		if _, err := m2.Fit(ctx, x, ones, keras.FitOptions{Epochs: 10, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		if after := penalty(); after > before/2 {
			t.Errorf("the penalised activations' mean square went from %v to %v under a heavy AddLoss penalty", before/rate, after/rate)
		}
	})
}
