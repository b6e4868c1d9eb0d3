package keras_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// xor returns the four XOR samples.
func xor() (x, y keras.Array) {
	return keras.Must(keras.NewArray([]float32{0, 0, 0, 1, 1, 0, 1, 1}, 4, 2)),
		keras.Must(keras.NewArray([]float32{0, 1, 1, 0}, 4, 1))
}

// Keras's guide "Customizing what happens in fit()": a training step of
// one's own, given to Compile, and Fit runs it.
func ExampleCompileOptions_trainStep() {
	trainStep := func(s *keras.Step, data keras.StepData) (keras.StepLogs, error) {
		model := s.Model()
		yPred := s.Call(model, true, data.X...)                  // self(x, training=True)
		loss := s.ComputeLoss(data.Y, yPred, data.SampleWeights) // self.compute_loss(...)
		vars := model.TrainableWeights()
		s.Apply(nil, s.Gradients(loss, vars), vars) // self.optimizer.apply(grads, vars)
		return append(keras.StepLogs{{Name: "loss", Value: loss}}, s.ComputeMetrics(data.Y, yPred, data.SampleWeights)...), nil
	}
	x, y := xor()
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 8, Activation: "tanh"}, &layers.Dense{Units: 1, Activation: "sigmoid"}))
	keras.MustOK(model.Compile(keras.CompileOptions{
		Optimizer: &optimizers.Adam{LearningRate: 0.05}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"),
		TrainStep: trainStep, Seed: 3,
	}))
	history := keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 300, BatchSize: 4}))
	acc := history.Logs["accuracy"]
	fmt.Println("logs:", history.Names())
	fmt.Println("final accuracy:", acc[len(acc)-1])
	// Output:
	// logs: [loss accuracy]
	// final accuracy: 1
}

// Keras's guide "Writing a training loop from scratch": the loop is
// yours, each step is TrainOnBatch.
func ExampleModel_TrainOnBatch() {
	ctx := context.Background()
	x, y := xor()
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 8, Activation: "tanh"}, &layers.Dense{Units: 1, Activation: "sigmoid"}))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.05}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"), Seed: 3}))
	for epoch := range 300 {
		for from := 0; from < 4; from += 2 { // batches of 2
			logs := keras.Must(model.TrainOnBatch(ctx, x.Rows(from, from+2), y.Rows(from, from+2), keras.OnBatchOptions{}))
			if loss, _ := logs.Get("loss"); epoch == 0 && from == 0 {
				fmt.Printf("first batch's loss is a number: %v\n", loss > 0)
			}
		}
	}
	logs := keras.Must(model.TestOnBatch(ctx, x, y, keras.OnBatchOptions{}))
	acc, _ := logs.Get("accuracy")
	fmt.Println("accuracy:", acc)
	// Output:
	// first batch's loss is a number: true
	// accuracy: 1
}

// Keras's guide "Transfer learning & fine-tuning": a trained base under a
// new head keeps its weights; frozen, Fit leaves it; unfrozen and
// recompiled with a low learning rate, fine-tuning moves it.
func ExampleModel_SetTrainable() {
	ctx := context.Background()
	x, y := xor()
	base := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 8, Activation: "tanh"}))
	in := layers.Input(2)
	first := keras.Must(keras.NewModel(in, layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, layers.Apply(base, in))))
	keras.MustOK(first.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Seed: 1}))
	keras.Must(first.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 20, BatchSize: 4}))
	trained := keras.Must(base.GetWeights())

	// A new head on the trained base, which is frozen.
	in2 := layers.Input(2)
	model := keras.Must(keras.NewModel(in2, layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, layers.Apply(base, in2))))
	base.SetTrainable(false)
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Seed: 2}))
	keras.Must(model.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 20, BatchSize: 4}))
	fmt.Println("frozen base unchanged:", equalWeights(keras.Must(base.GetWeights()), trained))

	// Fine-tuning: unfreeze, compile again (as Keras requires), low rate.
	base.SetTrainable(true)
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 1e-5}, Loss: keras.Loss("binary_crossentropy"), Seed: 2}))
	keras.Must(model.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 5, BatchSize: 4}))
	fmt.Println("fine-tuned base unchanged:", equalWeights(keras.Must(base.GetWeights()), trained))
	// Output:
	// frozen base unchanged: true
	// fine-tuned base unchanged: false
}

func equalWeights(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(p, q []float32) bool { return slices.Equal(p, q) })
}
