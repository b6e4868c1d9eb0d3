package backend

// Value is a symbolic tensor inside a [Func]: the result of a Builder op or
// one of the Func's inputs. Its shape is concrete.
type Value interface {
	Shape() Shape
	DType() DType
}

// Padding selects how Conv2D and MaxPool2D treat borders, as in Keras:
// "valid" (no padding) or "same" (pad so that output size = ceil(in/stride)).
type Padding string

// The two Keras padding modes.
const (
	Valid Padding = "valid"
	Same  Padding = "same"
)

// ConvOptions configures [Builder.Conv2D].
type ConvOptions struct {
	Strides [2]int // row and column stride; zero means 1
	Padding Padding
}

// PoolOptions configures [Builder.MaxPool2D].
type PoolOptions struct {
	Size    [2]int // pool window rows and columns
	Strides [2]int // zero means the window size, as in Keras
	Padding Padding
}

// Builder is the op set that layers, losses, metrics and optimizers are
// written with. Binary elementwise ops broadcast like NumPy. Every op
// validates its arguments; the first failure is recorded and returned by Err,
// and later ops return a placeholder Value, so a Func checks Err once at the
// end (as with bufio.Scanner).
type Builder interface {
	// DType is the element type of the Func being built.
	DType() DType

	// Scalar returns a constant scalar of the Builder's dtype.
	Scalar(v float64) Value
	// Constant returns a constant tensor holding data (row-major) of shape s.
	Constant(data []float64, s Shape) Value

	// Add, Sub, Mul and Div are elementwise with broadcasting.
	Add(a, b Value) Value
	Sub(a, b Value) Value
	Mul(a, b Value) Value
	Div(a, b Value) Value
	// Maximum is elementwise max(a, b) with broadcasting.
	Maximum(a, b Value) Value
	// Minimum is elementwise min(a, b) with broadcasting.
	Minimum(a, b Value) Value

	Neg(x Value) Value
	Exp(x Value) Value
	Log(x Value) Value
	Sqrt(x Value) Value
	Square(x Value) Value
	Relu(x Value) Value
	Sigmoid(x Value) Value
	Tanh(x Value) Value
	// Softmax normalises the last axis.
	Softmax(x Value) Value
	// LogSoftmax is log(Softmax(x)) computed stably over the last axis.
	LogSoftmax(x Value) Value
	// Erf is the error function, elementwise (gelu uses it).
	Erf(x Value) Value
	// Sin and Cos are elementwise, in radians (a random rotation's
	// matrix).
	Sin(x Value) Value
	Cos(x Value) Value
	// Abs is |x|, elementwise (its gradient at 0 is 0, as in Keras).
	Abs(x Value) Value
	// Log1p is log(1+x) and Expm1 is exp(x)-1, elementwise, accurate
	// for x near 0.
	Log1p(x Value) Value
	Expm1(x Value) Value
	// Atan is the inverse tangent, elementwise, in radians.
	Atan(x Value) Value
	// ErfInv is the inverse of Erf, elementwise, on (-1, 1).
	ErfInv(x Value) Value
	// StopGradient is x itself, through which no gradient flows: Keras's
	// ops.stop_gradient.
	StopGradient(x Value) Value
	// Where picks a where cond is not 0 and b elsewhere, elementwise, the
	// three broadcast together: Keras's ops.where. A value of the branch
	// not taken never reaches the result or its gradient (an Inf there
	// does no harm). Differentiable in a and b, not cond.
	Where(cond, a, b Value) Value

	// MatMul multiplies two matrices: (m, k) x (k, n) -> (m, n).
	MatMul(a, b Value) Value
	// BatchMatMul multiplies matrices batch by batch: (batch..., m, k) x
	// (batch..., k, n) -> (batch..., m, n), with the same batch axes
	// (at least one) on both sides: attention's products.
	BatchMatMul(a, b Value) Value
	// Sum adds along the given axes (all axes if none), dropping them.
	Sum(x Value, axes ...int) Value
	// Mean averages along the given axes (all axes if none), dropping them.
	Mean(x Value, axes ...int) Value
	// Reshape returns x with a new shape of the same size.
	Reshape(x Value, s Shape) Value
	// Concat joins xs along axis (negative counts from the end); their
	// other dimensions must agree.
	Concat(axis int, xs ...Value) Value
	// Transpose permutes x's axes: output axis i is input axis perm[i].
	Transpose(x Value, perm ...int) Value
	// Slice takes the block of x starting at begin with the given size
	// along every axis (the rank is kept).
	Slice(x Value, begin, size []int) Value

	// Conv2D convolves x (batch, height, width, inChannels) with kernel
	// (kernelH, kernelW, inChannels, outChannels), Keras's channels_last
	// layout, giving (batch, outH, outW, outChannels). No bias.
	Conv2D(x, kernel Value, o ConvOptions) Value
	// MaxPool2D takes the maximum over windows of x (batch, height, width,
	// channels).
	MaxPool2D(x Value, o PoolOptions) Value

	// The ops below are not differentiable; gradients do not flow through
	// them.

	// ArgMax returns the index of the largest element along the last axis,
	// as a float tensor with that axis removed.
	ArgMax(x Value) Value
	// Equal returns 1 where a == b and 0 elsewhere (same shapes).
	Equal(a, b Value) Value
	// Greater returns 1 where a > b and 0 elsewhere (broadcasting).
	Greater(a, b Value) Value
	// Floor rounds down to a whole number, elementwise (an image
	// sampler's pixel indices).
	Floor(x Value) Value
	// Cast turns an int32 value (an input of token ids) into the Func's
	// float dtype; other ops refuse int32 values.
	Cast(x Value) Value
	// Gather takes the rows of table (rows, ...) at indices (any shape,
	// int32, or float holding integers, truncated toward zero), giving
	// indices.Shape + table.Shape[1:]: Embedding's lookup. It is
	// differentiable with respect to table (the output's gradient is
	// added into the rows taken), not indices. An index outside [0, rows)
	// makes the Run fail; nothing is read outside table.
	Gather(table, indices Value) Value
	// TakeAlongLastAxis picks one value of x (..., n) per row of its last
	// axis, out[...] = x[..., indices[...]], indices (x's shape without
	// the last axis, float holding integers, truncated toward zero)
	// naming the column: Keras's take_along_axis(x, indices[..., None],
	// axis=-1)[..., 0], as a sparse cross-entropy needs it. Engines may
	// fuse it ([TakeOps]); then an index outside [0, n) fails the Run.
	// Differentiable in x, not indices.
	TakeAlongLastAxis(x, indices Value) Value
	// OneHot turns class indices (any shape, float) into one-hot vectors
	// along a new last axis of size depth.
	OneHot(indices Value, depth int) Value
	// RandomUniform returns fresh samples from [0, 1) of shape s on every
	// run, from the Executable's seeded generator.
	RandomUniform(s Shape) Value
	// RandomNormal returns fresh samples of the standard normal
	// distribution of shape s, from the same generator.
	RandomNormal(s Shape) Value
	// RandomUniformFrom returns samples from [0, 1) of shape s drawn by
	// a generator seeded with the two values of seed, a (2,) tensor of
	// whole numbers (Keras's SeedGenerator state): the same seed gives
	// the same samples on every run and on every engine
	// (SeededUniform). Not differentiable.
	RandomUniformFrom(seed Value, s Shape) Value

	// Dropout is Keras's dropout in training: each value of x is kept
	// with probability 1-rate and scaled by 1/(1-rate), or zeroed, with a
	// fresh mask from the Executable's generator on every run; see
	// [DropoutReference]. Engines may fuse it ([DropoutOps]).
	// Differentiable in x.
	Dropout(x Value, rate float64) Value

	// AdamUpdate is one Adam step for one parameter p with gradient g and
	// moments m and v (all one shape) and the scalar step size alpha; see
	// [AdamReference] for the rule. Engines may fuse it ([AdamOps]). Not
	// differentiable.
	AdamUpdate(p, g, m, v, alpha Value, beta1, beta2, eps float64) (newP, newM, newV Value)
	// SGDUpdate is one step of plain SGD (no momentum) for one parameter
	// p with gradient g of its shape and the scalar learning rate lr, p -
	// lr·g; see [SGDReference]. Engines may fuse it ([SGDOps]). Not
	// differentiable.
	SGDUpdate(p, g, lr Value) Value

	// LSTMSequence is Keras's LSTM layer (sigmoid gates, tanh) over the
	// whole sequence x (batch, steps, features) from the initial states
	// h0 and c0 (batch, units): the last h, or every h with
	// o.ReturnSequences, then with o.ReturnState the final h and c; see
	// [LSTMReference] for the rule. bias may be nil. Engines may fuse it
	// ([LSTMOps]). Differentiable in every argument.
	LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0 Value, o RecurrentOptions) (out, h, c Value)
	// GRUSequence is Keras's GRU layer with reset_after=True (sigmoid
	// gates, tanh) over the whole sequence x from the initial state h0:
	// the last h, or every h with o.ReturnSequences, then with
	// o.ReturnState the final h; see [GRUReference] for the rule. The
	// biases may be nil. Engines may fuse it ([GRUOps]). Differentiable
	// in every argument.
	GRUSequence(x, kernel, inputBias, recurrentKernel, recurrentBias, h0 Value, o RecurrentOptions) (out, h Value)

	// BatchNormalize normalises x (batch, ..., channels) over every axis
	// but the last with the batch's own mean and variance, then scales by
	// gamma and offsets by beta (each (channels), or nil): Keras's
	// BatchNormalization in training; see [BatchNormReference]. It also
	// returns the mean and variance (channels) for the moving averages.
	// y is differentiable in x, gamma and beta (through the statistics
	// too); an engine that fuses it ([BatchNormOps]) may treat the mean
	// and variance results as constants.
	BatchNormalize(x, gamma, beta Value, eps float64) (y, mean, variance Value)

	// LayerNormalize normalises each row of x's last axis with its own
	// mean and variance, then scales by gamma and offsets by beta (each
	// (features), or nil): Keras's LayerNormalization; see
	// [LayerNormReference]. Engines may fuse it ([LayerNormOps]).
	// Differentiable in x, gamma and beta.
	LayerNormalize(x, gamma, beta Value, eps float64) Value

	// AllReduceSum returns x summed elementwise over every process of a
	// data-parallel group (see [Collective]); the engine must implement
	// [CollectiveOps]. Not differentiable.
	AllReduceSum(x Value, group Collective) Value

	// Grad returns d(loss)/d(w) for each w in wrt. loss must be a scalar.
	Grad(loss Value, wrt []Value) []Value

	// CustomGradient is forward, a value computed from inputs, with its
	// gradient given by vjp instead of by differentiating forward: when
	// Grad reaches the result with the gradient upstream (forward's
	// shape), vjp builds, with this Builder, the gradient of each input
	// (its shape; nil for zero), and Grad goes on from the inputs. No
	// gradient flows through forward itself, nor to a value forward uses
	// that is not among inputs. vjp runs once per Grad that reaches the
	// result and may not call Grad itself. Keras's ops.custom_gradient
	// (keras/ops.CustomGradient is its Keras-style form).
	CustomGradient(inputs []Value, forward Value, vjp func(upstream Value) []Value) Value

	// Err returns the first error any op met, or nil.
	Err() error

	// Fail records err (prefixed with the layer being built, if any) as
	// the builder's error unless it has one, and returns a placeholder
	// of shape s: for a layer or a step that finds its inputs unusable,
	// so that the error reaches the caller as an op's would.
	Fail(s Shape, err error) Value
}
