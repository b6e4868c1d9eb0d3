package layers_test

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
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
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &ComputeSum{}, &layers.Dense{Units: 1}))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))
	x := keras.Must(keras.NewArray([]float32{1, 2, 3, 4}, 2, 2))
	y := keras.Must(keras.NewArray([]float32{0, 0}, 2, 1))
	keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 3, BatchSize: 2, Verbose: keras.Silent}))
	w := keras.Must(model.GetWeights())
	fmt.Println("total after 3 steps:", w[0])
	// Output: total after 3 steps: [12 18]
}

// Layers compute their output shapes as they are applied (Keras's
// functional API), so a shape error names the layer before any engine
// runs. A U-Net's decoder step: upsample with a transposed convolution,
// join the encoder's features, convolve.
func ExampleConv2DTranspose() {
	encoder := layers.Input(16, 16, 8)
	bottleneck := layers.Apply(&layers.MaxPooling2D{}, encoder)
	up := layers.Apply(&layers.Conv2DTranspose{Filters: 8, KernelSize: [2]int{2, 2}, Strides: [2]int{2, 2}}, bottleneck)
	joined := layers.Apply(&layers.Concatenate{}, up, encoder)
	out := layers.Apply(&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"}, joined)
	fmt.Println(bottleneck.Shape(), up.Shape(), joined.Shape(), out.Shape())
	// Output: (None, 8, 8, 8) (None, 16, 16, 8) (None, 16, 16, 16) (None, 16, 16, 4)
}

// Normalisation layers and their weights: BatchNormalization keeps
// moving statistics (not trainable), LayerNormalization and
// GroupNormalization only a scale and an offset.
func ExampleBatchNormalization() {
	for _, l := range []layers.Layer{&layers.BatchNormalization{}, &layers.LayerNormalization{}, &layers.GroupNormalization{Groups: 4}} {
		layers.Apply(l, layers.Input(10, 10, 16))
		var names []string
		for _, w := range l.Common().Weights() {
			names = append(names, fmt.Sprintf("%s%v trainable=%v", w.Name, w.Shape, w.Trainable))
		}
		fmt.Println(l.ClassName(), names)
	}
	// Output:
	// BatchNormalization [gamma(16,) trainable=true beta(16,) trainable=true moving_mean(16,) trainable=false moving_variance(16,) trainable=false]
	// LayerNormalization [gamma(16,) trainable=true beta(16,) trainable=true]
	// GroupNormalization [gamma(16,) trainable=true beta(16,) trainable=true]
}

// Merging branches: element-wise layers need shapes that are equal or
// broadcast (an axis of length 1 stretches), Concatenate
// equal shapes but for its axis, Dot multiplies along an axis of each.
func ExampleDot() {
	a, b := layers.Input(5, 8), layers.Input(7, 8)
	scores := layers.Apply(&layers.Dot{Axes: [2]int{2, 2}}, a, b) // every row of a with every row of b
	bad := layers.Apply(&layers.Add{}, a, b)
	fmt.Println(scores.Shape())
	fmt.Println(bad.Err())
	// Output:
	// (None, 5, 7)
	// layer Add: inputs must have the same shape or broadcast together: input 0 has (None, 5, 8), input 1 has (None, 7, 8)
}

// Keras's "Working with RNNs" first model: token ids through an
// Embedding into an LSTM (the last output) and a Dense classifier; with
// ReturnSequences an RNN returns every step's output, so RNNs stack.
// Parameters as Keras counts them: 64,000 + GRU 9,408 (reset_after's two
// bias rows) + LSTM 3,136 + 170.
func ExampleLSTM() {
	ids := layers.Input(20) // 20 token ids per sample
	x := layers.Apply(&layers.Embedding{InputDim: 1000, OutputDim: 64}, ids)
	seq := layers.Apply(&layers.GRU{Units: 32, ReturnSequences: true}, x)
	last := layers.Apply(&layers.LSTM{Units: 16}, seq)
	out := layers.Apply(&layers.Dense{Units: 10}, last)
	model := keras.Must(keras.NewModel(ids, out))
	fmt.Println(x.Shape(), seq.Shape(), last.Shape(), out.Shape())
	fmt.Println("params:", model.CountParams())
	// Output:
	// (None, 20, 64) (None, 20, 32) (None, 16) (None, 10)
	// params: 76714
}

// A Keras Lambda layer in Go: the function registered under the Python
// function's name (for a Keras file with Lambda(double_plus_one)), then
// applied like any layer.
func ExampleRegisterLambda() {
	err := layers.RegisterLambda("example_double_plus_one", layers.LambdaFunc{
		Call: func(ctx *layers.Context, in []backend.Value) backend.Value {
			b := ctx.B
			return b.Add(b.Mul(in[0], b.Scalar(2)), b.Scalar(1))
		},
	})
	if err != nil {
		panic(err)
	}
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Lambda{Function: "example_double_plus_one"}))
	x := keras.Must(keras.NewArray([]float32{0, 1, 2}, 1, 3))
	y := keras.Must(model.Predict(context.Background(), x, keras.PredictOptions{}))
	fmt.Println(y.Data)
	// Output: [1 3 5]
}

// minimalRNNCell is the cell of Keras's RNN documentation: output =
// x·kernel + h·recurrent_kernel, one state.
type minimalRNNCell struct {
	Units int
	layers.Base
	kernel, recurrent *layers.Weight
}

func (c *minimalRNNCell) ClassName() string { return "MinimalRNNCell" }
func (c *minimalRNNCell) StateSizes() []int { return []int{c.Units} }
func (c *minimalRNNCell) OutputSize() int   { return c.Units }

// Build receives one step's input (batch, features).
func (c *minimalRNNCell) Build(in []backend.Shape) (backend.Shape, error) {
	var err error
	if c.kernel, err = c.AddWeight("kernel", backend.Shape{in[0][1], c.Units}, initializers.RandomUniform{}); err != nil {
		return nil, err
	}
	if c.recurrent, err = c.AddWeight("recurrent_kernel", backend.Shape{c.Units, c.Units}, initializers.RandomUniform{}); err != nil {
		return nil, err
	}
	return backend.Shape{in[0][0], c.Units}, nil
}

// Step computes one step's output and next state.
func (c *minimalRNNCell) Step(ctx *layers.Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
	b := ctx.B
	out := ops.Add(b, ops.Matmul(b, x, ctx.Weight(c.kernel)), ops.Matmul(b, states[0], ctx.Weight(c.recurrent)))
	return out, []backend.Value{out}
}

// Call is one step from the given state.
func (c *minimalRNNCell) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	out, _ := c.Step(ctx, in[0], in[1:])
	return out
}

// Keras's RNN over cells: a built-in LSTMCell (the same as an LSTM
// layer), a stack of cells in one loop, and a cell of your own.
func ExampleRNN() {
	x := layers.Input(10, 5) // 10 steps of 5 features
	lstm := layers.Apply(&layers.RNN{Cell: &layers.LSTMCell{Units: 8}}, x)
	stacked := layers.Apply(&layers.RNN{Cell: &layers.StackedRNNCells{Cells: []layers.RecurrentCell{
		&layers.GRUCell{Units: 6}, &layers.LSTMCell{Units: 4},
	}}, ReturnSequences: true}, x)
	own := layers.Apply(&layers.RNN{Cell: &minimalRNNCell{Units: 3}}, x)
	fmt.Println(lstm.Shape(), stacked.Shape(), own.Shape())
	fmt.Println("params:", keras.Must(keras.NewModel(x, lstm)).CountParams(), keras.Must(keras.NewModel(x, stacked)).CountParams(),
		keras.Must(keras.NewModel(x, own)).CountParams())
	// Output:
	// (None, 8) (None, 10, 4) (None, 3)
	// params: 448 410 24
}
