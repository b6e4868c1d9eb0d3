package keras_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Scale multiplies its input by a learned per-feature factor, times a
// fixed Gain: a custom layer that saves and loads with the model.
type Scale struct {
	Gain float64
	layers.Base

	factor *layers.Weight
}

// ClassName names the class in config.json.
func (s *Scale) ClassName() string { return "Scale" }

// Build creates one factor per feature, starting at 1.
func (s *Scale) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("expects 1 input, received %d", len(in))
	}
	w, err := s.AddWeight("factor", backend.Shape{in[0][len(in[0])-1]}, initializers.Constant{Value: 1})
	s.factor = w
	return in[0].Clone(), err
}

// Call computes x * factor * Gain.
func (s *Scale) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return ctx.B.Mul(ctx.B.Mul(in[0], ctx.Weight(s.factor)), ctx.B.Scalar(s.Gain))
}

// GetConfig saves Gain under Keras's snake_case convention.
func (s *Scale) GetConfig() (serialization.Config, error) {
	return serialization.Config{"gain": s.Gain}, nil
}

func init() {
	err := keras.RegisterLayer("Scale", func(r *serialization.Reader) (layers.Layer, error) {
		return &Scale{Gain: r.Float("gain", 1)}, nil
	})
	if err != nil {
		panic(err)
	}
}

// A model with a layer of your own saves and loads like any other once
// the layer has a GetConfig method and is registered.
func ExampleRegisterLayer() {
	model := keras.Must(keras.NewSequential(
		&layers.InputLayer{Shape: []int{3}},
		&Scale{Gain: 2},
		&layers.Dense{Units: 1},
	))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "scaled.keras")
	keras.MustOK(model.Save(path))

	loaded := keras.Must(keras.LoadModel(path))
	x := keras.Array{Shape: []int{1, 3}, Data: []float32{1, 2, 3}}
	a := keras.Must(model.Predict(context.Background(), x, keras.PredictOptions{}))
	b := keras.Must(loaded.Predict(context.Background(), x, keras.PredictOptions{}))
	fmt.Println(loaded.Layers()[1].ClassName(), loaded.Layers()[1].(*Scale).Gain)
	fmt.Printf("same prediction: %v\n", a.Data[0] == b.Data[0])
	// Output:
	// Scale 2
	// same prediction: true
}
