package layers_test

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// ComputeSum keeps a running sum of its inputs in a non-trainable weight,
// like the ComputeSum layer of Keras's guide "Making new layers and
// models via subclassing": training steps assign it a new value.
type ComputeSum struct {
	layers.Base
	total *layers.Weight
}

func (c *ComputeSum) ClassName() string { return "ComputeSum" }

func (c *ComputeSum) Build(in []backend.Shape) (backend.Shape, error) {
	w, err := c.AddWeight("total", backend.Shape{in[0][1]}, initializers.Constant{})
	if err != nil {
		return nil, err
	}
	w.Trainable = false
	c.total = w
	return in[0].Clone(), nil
}

func (c *ComputeSum) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b := ctx.B
	ctx.Assign(c.total, b.Add(ctx.Weight(c.total), b.Sum(in[0], 0))) // in training steps only
	return in[0]
}

// A layer with a non-trainable weight updated by training (as
// BatchNormalization's moving statistics): Summary counts it as
// non-trainable, and each training step adds the batch's column sums.
func Example_nonTrainableWeight() {
	model := keras.Must(keras.NewSequential(layers.Input(2), &ComputeSum{}, &layers.Dense{Units: 1}))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: "sgd", Loss: "mse", Seed: 1}))
	x := keras.Must(keras.NewArray([]float32{1, 2, 3, 4}, 2, 2))
	y := keras.Must(keras.NewArray([]float32{0, 0}, 2, 1))
	keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 3, BatchSize: 2, Verbose: keras.Silent}))
	w := keras.Must(model.GetWeights())
	fmt.Println("total after 3 steps:", w[0])
	// Output: total after 3 steps: [12 18]
}
