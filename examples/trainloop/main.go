// Command trainloop trains a Fashion-MNIST classifier with a training
// loop written by hand, as Keras's guide "Writing a training loop from
// scratch" does: for each epoch, for each batch, one TrainOnBatch; at the
// end of each epoch, an evaluation on held-out images. It then trains the
// same model with Fit on the same batches and prints how far apart the two
// models' weights are (the loop runs the very step Fit runs).
//
//	go run ./examples/trainloop -epochs 3
//
// The images come from Debian's dataset-fashion-mnist package
// (apt-get install dataset-fashion-mnist) or a copy in the kerasgo cache.
package main

import (
	"context"
	"fmt"
	"math"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

const batch = 64

// newModel is the guide's model: two Dense layers of 64 and a softmax.
func newModel(o example.Options) (*keras.Model, error) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{784}},
		&layers.Dense{Units: 64, Activation: "relu"},
		&layers.Dropout{Rate: 0.1},
		&layers.Dense{Units: 64, Activation: "relu"},
		&layers.Dense{Units: 10, Activation: "softmax"},
	)
	if err != nil {
		return nil, err
	}
	err = m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 1e-3}, Loss: keras.Loss("sparse_categorical_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed})
	return m, err
}

// result is the loop's held-out accuracy after each epoch and the largest
// difference between the loop's weights and Fit's.
type result struct {
	accuracy []float64
	maxDiff  float64
}

func run(ctx context.Context, o example.Options) (result, error) {
	data, err := mnist.Load(ctx, "fashion", mnist.Options{})
	if err != nil {
		return result{}, err
	}
	n, nt := min(o.Train, data.Train.Count), min(o.Test, data.Test.Count)
	x := keras.Array{Shape: []int{n, 784}, Data: data.Train.ImagesFloat32()[:n*784]}
	y := keras.Array{Shape: []int{n}, Data: data.Train.LabelsFloat32()[:n]}
	xt := keras.Array{Shape: []int{nt, 784}, Data: data.Test.ImagesFloat32()[:nt*784]}
	yt := keras.Array{Shape: []int{nt}, Data: data.Test.LabelsFloat32()[:nt]}

	// The hand-written loop.
	keras.ClearSession() // both models get the same names, so the same initial weights
	looped, err := newModel(o)
	if err != nil {
		return result{}, err
	}
	var r result
	for epoch := range o.Epochs {
		for from := 0; from < n; from += batch {
			to := min(from+batch, n)
			logs, err := looped.TrainOnBatch(ctx, x.Rows(from, to), y.Rows(from, to), keras.OnBatchOptions{})
			if err != nil {
				return result{}, err
			}
			if step := from / batch; o.Verbose != keras.Silent && step%200 == 0 {
				loss, _ := logs.Get("loss")
				fmt.Printf("epoch %d, batch %d: loss %.4f\n", epoch+1, step, loss)
			}
		}
		logs, err := looped.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
		if err != nil {
			return result{}, err
		}
		acc, _ := logs.Get("accuracy")
		r.accuracy = append(r.accuracy, acc)
	}

	// Fit on the same batches, in the same order.
	keras.ClearSession()
	fitted, err := newModel(o)
	if err != nil {
		return result{}, err
	}
	if _, err := fitted.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: batch, NoShuffle: true, Verbose: keras.Silent}); err != nil {
		return result{}, err
	}
	a, err := looped.GetWeights()
	if err != nil {
		return result{}, err
	}
	b, err := fitted.GetWeights()
	if err != nil {
		return result{}, err
	}
	for i := range a {
		for j := range a[i] {
			r.maxDiff = math.Max(r.maxDiff, math.Abs(float64(a[i][j]-b[i][j])))
		}
	}
	return r, nil
}

func main() {
	o := example.ParseFlags(3, 60000, 10000)
	r, err := run(context.Background(), o)
	example.Exit("trainloop", err)
	for e, a := range r.accuracy {
		fmt.Printf("epoch %d: held-out accuracy %.4f\n", e+1, a)
	}
	fmt.Printf("the loop's weights and Fit's differ by at most %g\n", r.maxDiff)
}
