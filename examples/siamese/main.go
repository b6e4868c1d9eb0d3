// Command siamese is Keras's example "Image similarity estimation using a
// Siamese Network with a contrastive loss"
// (keras.io/examples/vision/siamese_contrastive) on Fashion-MNIST: two
// towers share one embedding network, a layer written with keras/ops
// takes the Euclidean distance of the two embeddings, and the model
// learns with the contrastive loss, also written with keras/ops, whether
// two images show the same class (label 1) or not (label 0).
//
//	go run ./examples/siamese -epochs 10
//
// The page trains on MNIST pairs (not shipped with Debian) for 10 epochs
// and reaches a test accuracy of about 99%. The images come from Debian's
// dataset-fashion-mnist package (apt-get install dataset-fashion-mnist)
// or a copy in the kerasgo cache.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// EuclideanDistance is the page's euclidean_distance Lambda as a layer:
// sqrt(max(sum((x - y)², axis=1, keepdims), epsilon)).
type EuclideanDistance struct{ layers.Base }

// ClassName returns "EuclideanDistance".
func (*EuclideanDistance) ClassName() string { return "EuclideanDistance" }

// Build checks for two embeddings of one shape.
func (*EuclideanDistance) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 2 || !in[0].Equal(in[1]) || len(in[0]) != 2 {
		return nil, fmt.Errorf("expects two embeddings (batch, features) of one shape, received %v", in)
	}
	return backend.Shape{in[0][0], 1}, nil
}

// Call computes the distance.
func (*EuclideanDistance) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b := ctx.B
	sum := ops.Sum(b, ops.Square(b, ops.Subtract(b, in[0], in[1])), ops.Axis(1), ops.KeepDims())
	return ops.Sqrt(b, ops.Maximum(b, sum, b.Scalar(1e-7)))
}

// contrastive is the page's contrastive loss with margin m:
// mean((1 - y)·p² + y·max(m - p, 0)²).
func contrastive(m float64) losses.Loss {
	return losses.FromFunc(func(b backend.Builder, y, p backend.Value) backend.Value {
		one := b.Scalar(1)
		near := ops.Multiply(b, ops.Subtract(b, one, y), ops.Square(b, p))
		far := ops.Multiply(b, y, ops.Square(b, ops.Maximum(b, ops.Subtract(b, b.Scalar(m), p), b.Scalar(0))))
		return ops.Mean(b, ops.Add(b, near, far))
	})
}

// newSiamese returns the page's model: an embedding network (batch
// normalization, two tanh convolutions with average pooling, a tanh
// Dense of 10) applied to both images, their distance, a batch
// normalization and a sigmoid.
func newSiamese() (*keras.Model, error) {
	in := layers.Input(28, 28, 1)
	x := layers.Apply(&layers.BatchNormalization{}, in)
	x = layers.Apply(&layers.Conv2D{Filters: 4, KernelSize: [2]int{5, 5}, Activation: "tanh"}, x)
	x = layers.Apply(&layers.AveragePooling2D{PoolSize: [2]int{2, 2}}, x)
	x = layers.Apply(&layers.Conv2D{Filters: 16, KernelSize: [2]int{5, 5}, Activation: "tanh"}, x)
	x = layers.Apply(&layers.AveragePooling2D{PoolSize: [2]int{2, 2}}, x)
	x = layers.Apply(&layers.Flatten{}, x)
	x = layers.Apply(&layers.BatchNormalization{}, x)
	x = layers.Apply(&layers.Dense{Units: 10, Activation: "tanh"}, x)
	embedding, err := keras.NewModel(in, x)
	if err != nil {
		return nil, err
	}
	in1, in2 := layers.Input(28, 28, 1), layers.Input(28, 28, 1)
	d := layers.Apply(&EuclideanDistance{}, layers.Apply(embedding, in1), layers.Apply(embedding, in2))
	d = layers.Apply(&layers.BatchNormalization{}, d)
	out := layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, d)
	return keras.NewFunctional([]*layers.KerasTensor{in1, in2}, []*layers.KerasTensor{out})
}

// pairs makes the page's pairs: for each image, one of the same class
// (label 1) and one of another (label 0).
func pairs(images []float32, labels []float32, n int, seed uint64) (x1, x2, y keras.Array) {
	const px = 28 * 28
	r := rand.New(rand.NewPCG(seed, 1))
	byClass := make([][]int, 10)
	for i := 0; i < n; i++ {
		c := int(labels[i])
		byClass[c] = append(byClass[c], i)
	}
	a := make([]float32, 0, 2*n*px)
	b := make([]float32, 0, 2*n*px)
	l := make([]float32, 0, 2*n)
	for i := 0; i < n; i++ {
		c := int(labels[i])
		same := byClass[c][r.IntN(len(byClass[c]))]
		other := (c + 1 + r.IntN(9)) % 10
		diff := byClass[other][r.IntN(len(byClass[other]))]
		img := images[i*px : (i+1)*px]
		a = append(a, img...)
		b = append(b, images[same*px:(same+1)*px]...)
		l = append(l, 1)
		a = append(a, img...)
		b = append(b, images[diff*px:(diff+1)*px]...)
		l = append(l, 0)
	}
	s := []int{2 * n, 28, 28, 1}
	return keras.Array{Shape: s, Data: a}, keras.Array{Shape: s, Data: b}, keras.Array{Shape: []int{2 * n}, Data: l}
}

// result is the test accuracy and loss, and the training loss by epoch.
type result struct {
	accuracy, loss float64
	trainLoss      []float64
}

func run(ctx context.Context, o example.Options) (result, error) {
	data, err := mnist.Load(ctx, "fashion", mnist.Options{})
	if err != nil {
		return result{}, err
	}
	n, nt := min(o.Train, data.Train.Count), min(o.Test, data.Test.Count)
	x1, x2, y := pairs(data.Train.ImagesFloat32(), data.Train.LabelsFloat32(), n, uint64(o.Seed))
	t1, t2, yt := pairs(data.Test.ImagesFloat32(), data.Test.LabelsFloat32(), nt, uint64(o.Seed)+1)
	m, err := newSiamese()
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.RMSprop{}, Loss: keras.LossOf(contrastive(1)),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.Fit(ctx, keras.Arrays{x1, x2}, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 16, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	logs, err := m.Evaluate(ctx, keras.Arrays{t1, t2}, yt, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	var r result
	r.accuracy, _ = logs.Get("accuracy")
	r.loss, _ = logs.Get("loss")
	r.trainLoss = h.Logs["loss"]
	return r, nil
}

func main() {
	o := example.ParseFlags(10, 60000, 10000)
	r, err := run(context.Background(), o)
	example.Exit("siamese", err)
	fmt.Printf("contrastive loss by epoch: %.4f\n", r.trainLoss)
	fmt.Printf("test pairs: loss %.4f, accuracy %.4f\n", r.loss, r.accuracy)
}
