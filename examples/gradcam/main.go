// Command gradcam is Keras's example "Grad-CAM class activation
// visualization" (keras.io/examples/vision/grad_cam) on Fashion-MNIST: a
// small convnet is trained, then for each test image the gradient of its
// top class score with respect to the last convolution's output weighs
// that output's channels into a heatmap of where the model looked. The
// heatmap is computed inside one compiled function, with keras/ops, and
// resized to the image with ops.Resize.
//
//	go run ./examples/gradcam -epochs 5
//
// The page explains an ImageNet Xception's prediction on one photograph
// (pretrained weights are not downloaded here); this program prints, over
// the test images, how much of the heatmap falls on the garment rather
// than the background. The images come from Debian's
// dataset-fashion-mnist package (apt-get install dataset-fashion-mnist)
// or a copy in the kerasgo cache.
package main

import (
	"context"
	"fmt"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// newModels returns the classifier and a model of the same layers that
// also returns the last convolution's output, Keras's grad_model.
func newModels() (classifier, gradModel *keras.Model, err error) {
	in := layers.Input(28, 28, 1)
	x := layers.Apply(&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"}, in)
	x = layers.Apply(&layers.MaxPooling2D{PoolSize: [2]int{2, 2}}, x)
	conv := layers.Apply(layers.Named("last_conv", &layers.Conv2D{Filters: 64, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"}), x)
	x = layers.Apply(&layers.GlobalAveragePooling2D{}, conv)
	out := layers.Apply(&layers.Dense{Units: 10}, x)
	if classifier, err = keras.NewModel(in, out); err != nil {
		return nil, nil, err
	}
	gradModel, err = keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{conv, out})
	return classifier, gradModel, err
}

// heatmaps is the page's make_gradcam_heatmap for a batch: the gradient
// of each image's top class score with respect to the convolution's
// output, averaged over its positions, weighs the channels; the weighted
// sum, through a ReLU and divided by its maximum, is resized to the
// image: (batch, 28, 28, 1).
func heatmaps(s *keras.Step, xs []backend.Value) ([]backend.Value, error) {
	outs := s.Call(s.Model(), false, xs...)
	conv, preds := outs[0], outs[1]
	top := ops.Argmax(s, preds, ops.Axis(-1), ops.KeepDims())
	score := ops.Sum(s, ops.TakeAlongAxis(s, preds, top, -1))
	grads := s.Grad(score, []backend.Value{conv})[0]
	pooled := ops.Mean(s, grads, ops.Axis(1, 2), ops.KeepDims())
	heat := ops.Relu(s, ops.Sum(s, ops.Multiply(s, conv, pooled), ops.Axis(-1), ops.KeepDims()))
	heat = ops.Divide(s, heat, ops.Maximum(s, ops.Max(s, heat, ops.Axis(1, 2), ops.KeepDims()), s.Scalar(1e-7)))
	return []backend.Value{ops.Resize(s, heat, 28, 28, ops.ResizeOptions{})}, nil
}

// result is the classifier's test accuracy, the share of the heatmaps'
// mass on the garments' pixels, and the share of the images those pixels
// cover.
type result struct {
	accuracy, onObject, objectArea float64
}

func run(ctx context.Context, o example.Options) (result, error) {
	x, y, xt, yt, err := example.FashionMNIST(ctx, o)
	if err != nil {
		return result{}, err
	}
	classifier, gradModel, err := newModels()
	if err != nil {
		return result{}, err
	}
	if err := classifier.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 3e-3}, Loss: keras.LossOf(losses.SparseCategoricalCrossentropy{FromLogits: true}),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	if _, err := classifier.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 64, Verbose: o.Verbose, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	logs, err := classifier.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	var r result
	r.accuracy, _ = logs.Get("accuracy")
	// the grad model shares the classifier's trained layers
	if err := gradModel.Compile(keras.CompileOptions{Backend: o.Backend}); err != nil {
		return result{}, err
	}
	f, err := gradModel.NewFunction(heatmaps)
	if err != nil {
		return result{}, err
	}
	maps, err := f.Run(ctx, xt)
	if err != nil {
		return result{}, err
	}
	var heatOn, heatAll, on float64
	for i, h := range maps[0].Data {
		heatAll += float64(h)
		if xt.Data[i] > 0.1 {
			heatOn += float64(h)
			on++
		}
	}
	r.onObject, r.objectArea = heatOn/heatAll, on/float64(len(xt.Data))
	return r, nil
}

func main() {
	o := example.ParseFlags(5, 60000, 10000)
	r, err := run(context.Background(), o)
	example.Exit("gradcam", err)
	fmt.Printf("test accuracy %.4f; the heatmaps put %.1f%% of their mass on the garments, which cover %.1f%% of the images\n",
		r.accuracy, 100*r.onObject, 100*r.objectArea)
}
