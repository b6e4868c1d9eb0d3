package keras_test

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// squares is a keras.Dataset of 4 batches of 8 samples made on demand:
// x in [0, 1), y = x².
type squares struct{}

func (squares) Len() int { return 4 }

func (squares) Batch(_ context.Context, i int) (keras.Batch, error) {
	x := keras.Array{Shape: []int{8, 1}, Data: make([]float32, 8)}
	y := keras.Array{Shape: []int{8, 1}, Data: make([]float32, 8)}
	for k := range 8 {
		v := float32(i*8+k) / 32
		x.Data[k], y.Data[k] = v, v*v
	}
	return keras.Batch{X: x, Y: y}, nil
}

// Train from a Dataset, loaded by two goroutines, as Keras trains from a
// PyDataset; evaluate from a generator.
func ExampleBatches() {
	ctx := context.Background()
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{1}}, &layers.Dense{Units: 16, Activation: "tanh"}, &layers.Dense{Units: 1}))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Seed: 1}))
	history := keras.Must(model.Fit(ctx, keras.Batches{Dataset: squares{}, Workers: 2}, nil, keras.FitOptions{Epochs: 30, Seed: 7, Verbose: keras.Silent}))
	firstHalf := func(yield func(keras.Batch, error) bool) {
		for i := range 2 {
			b, err := squares{}.Batch(ctx, i)
			if !yield(b, err) {
				return
			}
		}
	}
	logs := keras.Must(model.Evaluate(ctx, keras.Batches{Generator: firstHalf}, nil, keras.EvaluateOptions{Verbose: keras.Silent}))
	fmt.Println("epochs:", len(history.Epochs))
	fmt.Println("loss went down:", history.Logs["loss"][29] < history.Logs["loss"][0])
	fmt.Println("logs:", logs.Names())
	// Output:
	// epochs: 30
	// loss went down: true
	// logs: [loss]
}
