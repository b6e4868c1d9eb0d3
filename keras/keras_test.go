package keras_test

import (
	"context"
	"math/rand/v2"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// blobs returns n samples of 2-D points in `classes` separable clusters.
func blobs(n, classes int, seed uint64) (keras.Array, keras.Array) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, 0, n*2)
	y := make([]float32, n)
	for i := 0; i < n; i++ {
		c := r.IntN(classes)
		y[i] = float32(c)
		x = append(x, float32(c)*2+float32(r.NormFloat64())*0.3, float32(c%2)*2+float32(r.NormFloat64())*0.3)
	}
	return keras.Array{Shape: []int{n, 2}, Data: x}, keras.Array{Shape: []int{n}, Data: y}
}

func TestFitLearnsBlobs(t *testing.T) {
	x, y := blobs(300, 3, 1)
	model, err := keras.NewSequential(
		&layers.InputLayer{Shape: []int{2}},
		&layers.Dense{Units: 16, Activation: "relu"},
		&layers.Dense{Units: 3, Activation: "softmax"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: "gorgonia", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	hist, err := model.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 30, BatchSize: 32, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	acc := hist.Logs["accuracy"]
	loss := hist.Logs["loss"]
	if acc[len(acc)-1] < 0.95 {
		t.Errorf("accuracy after 30 epochs = %v, want >= 0.95", acc[len(acc)-1])
	}
	if loss[len(loss)-1] >= loss[0] {
		t.Errorf("loss did not fall: %v", loss)
	}
	logs, err := model.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(logs)
	s, _ := model.Summary()
	t.Log("\n" + s)
}
