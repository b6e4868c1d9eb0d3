package keras_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/kerasgo/kerasgo/backends/gorgonia"
	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The classic Keras MNIST convnet, in 22 lines. (Not run by go test: one
// epoch takes minutes. `go run ./cmd/demo -model cnn` runs the same model.)
func Example_mnistConvnet() {
	ctx := context.Background()
	data := keras.Must(mnist.Load(ctx, "fashion", mnist.Options{Download: true}))
	xTrain, yTrain := keras.Must(keras.ArrayOf(data.Train.InputData())), keras.Must(keras.ArrayOf(data.Train.LabelData()))
	xTest, yTest := keras.Must(keras.ArrayOf(data.Test.InputData())), keras.Must(keras.ArrayOf(data.Test.LabelData()))
	model := keras.Must(keras.NewSequential(
		&layers.InputLayer{Shape: []int{28, 28, 1}},
		&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Activation: "relu"},
		&layers.Conv2D{Filters: 64, KernelSize: [2]int{3, 3}, Activation: "relu"},
		&layers.MaxPooling2D{PoolSize: [2]int{2, 2}},
		&layers.Dropout{Rate: 0.25},
		&layers.Flatten{},
		&layers.Dense{Units: 128, Activation: "relu"},
		&layers.Dropout{Rate: 0.5},
		&layers.Dense{Units: 10, Activation: "softmax"},
	))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy")}))
	keras.Must(model.Fit(ctx, xTrain, yTrain, keras.FitOptions{BatchSize: 128, Epochs: 15, ValidationSplit: 0.1, Verbose: 1}))
	score := keras.Must(model.Evaluate(ctx, xTest, yTest, keras.EvaluateOptions{Verbose: keras.Silent}))
	fmt.Printf("Test loss: %.4f\n", score[0].Value)
	fmt.Printf("Test accuracy: %.4f\n", score[1].Value)
}

// A runnable example on a toy problem: learn XOR.
func ExampleModel_Fit() {
	x := keras.Must(keras.NewArray([]float32{0, 0, 0, 1, 1, 0, 1, 1}, 4, 2))
	y := keras.Must(keras.NewArray([]float32{0, 1, 1, 0}, 4, 1))
	model := keras.Must(keras.NewSequential(
		&layers.InputLayer{Shape: []int{2}},
		&layers.Dense{Units: 8, Activation: "tanh"},
		&layers.Dense{Units: 1, Activation: "sigmoid"},
	))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.05}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"), Seed: 3}))
	history := keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 300, BatchSize: 4}))
	acc := history.Logs["accuracy"]
	fmt.Println("final accuracy:", acc[len(acc)-1])
	// Output: final accuracy: 1
}

// A model with two inputs and two outputs (Keras's functional API guide):
// data by name, a loss per output, and Keras's per-output log names.
func ExampleNewFunctional() {
	title := layers.NamedInput("title", 4)
	tags := layers.NamedInput("tags", 2)
	h := layers.Apply(&layers.Add{},
		layers.Apply(&layers.Dense{Units: 8, Activation: "relu"}, title),
		layers.Apply(&layers.Dense{Units: 8, Activation: "relu"}, tags))
	priority := layers.Apply(layers.Named("priority", &layers.Dense{Units: 1}), h)
	department := layers.Apply(layers.Named("department", &layers.Dense{Units: 2, Activation: "softmax"}), h)
	model := keras.Must(keras.NewFunctional([]*layers.KerasTensor{title, tags}, []*layers.KerasTensor{priority, department}))
	keras.MustOK(model.Compile(keras.CompileOptions{
		Optimizer: &optimizers.Adam{},
		Loss: keras.ByName(map[string]losses.Loss{
			"priority":   losses.MeanSquaredError{},
			"department": losses.SparseCategoricalCrossentropy{},
		}),
		LossWeights: keras.ByName(map[string]float64{"priority": 1, "department": 0.2}),
		Metrics:     keras.ByName(map[string][]metrics.Metric{"department": {metrics.Named("accuracy")}}),
		Seed:        1,
	}))
	x := keras.NamedArrays{
		"title": keras.Must(keras.NewArray([]float32{1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1}, 4, 4)),
		"tags":  keras.Must(keras.NewArray([]float32{1, 0, 0, 1, 1, 1, 0, 0}, 4, 2)),
	}
	y := keras.NamedArrays{
		"priority":   keras.Must(keras.NewArray([]float32{0.5, 0.1, 0.9, 0.3}, 4, 1)),
		"department": keras.Must(keras.NewArray([]float32{0, 1, 1, 0}, 4)),
	}
	history := keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 4}))
	fmt.Println(history.Names())
	preds := keras.Must(model.PredictOutputs(context.Background(), x, keras.PredictOptions{}))
	fmt.Println(model.OutputNames(), preds[0].Shape, preds[1].Shape)
	// Output:
	// [loss priority_loss department_loss department_accuracy]
	// [priority department] [4 1] [4 2]
}

// Export a trained model for onnxruntime (Python, C++, C#, Java,
// JavaScript) or any runtime that reads ONNX, as Keras's
// model.export(path, format="onnx").
func ExampleModel_Export() {
	in := layers.NamedInput("features", 4)
	out := layers.Apply(layers.Named("species", &layers.Dense{Units: 3, Activation: "softmax"}), in)
	model := keras.Must(keras.NewModel(in, out))
	dir := keras.Must(os.MkdirTemp("", "export"))
	defer os.RemoveAll(dir)
	keras.MustOK(model.Export(filepath.Join(dir, "iris.onnx"), keras.ExportOptions{}))
	fmt.Println("inputs:", model.InputNames(), "outputs:", model.OutputNames())
	// Output: inputs: [features] outputs: [species]
}
