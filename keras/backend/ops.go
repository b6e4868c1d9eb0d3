package backend

// UnaryOp names an elementwise (or last-axis) op of one operand.
type UnaryOp int

// The unary ops an engine implements.
const (
	OpNeg UnaryOp = iota
	OpExp
	OpLog
	OpSqrt
	OpSquare
	OpRelu
	OpSigmoid
	OpTanh
	OpSoftmax    // over the last axis
	OpLogSoftmax // over the last axis
	OpErf        // the error function (for gelu)
	OpSin
	OpCos
	OpFloor // not differentiable
	OpAbs
	OpLog1p  // log(1+x), exact for small x
	OpExpm1  // exp(x)-1, exact for small x
	OpAtan   // the inverse tangent, in radians
	OpErfInv // the inverse of Erf, on (-1, 1)
	// OpStopGradient is the identity with no gradient: not
	// differentiable, so a gradient does not flow through it.
	OpStopGradient

	// LastUnaryOp is the last UnaryOp, for loops over all of them.
	LastUnaryOp = OpStopGradient
)

var unaryNames = [...]string{"Neg", "Exp", "Log", "Sqrt", "Square", "Relu", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Erf", "Sin", "Cos", "Floor",
	"Abs", "Log1p", "Expm1", "Atan", "ErfInv", "StopGradient"}

// String returns the op's Builder method name.
func (o UnaryOp) String() string { return unaryNames[o] }

// BinaryOp names an elementwise op of two broadcast operands.
type BinaryOp int

// The binary ops an engine implements. Equal and Greater are not
// differentiable and return 1 or 0.
const (
	OpAdd BinaryOp = iota
	OpSub
	OpMul
	OpDiv
	OpMaximum
	OpMinimum
	OpEqual
	OpGreater
)

var binaryNames = [...]string{"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Equal", "Greater"}

// String returns the op's Builder method name.
func (o BinaryOp) String() string { return binaryNames[o] }

// ReduceOp names a reduction.
type ReduceOp int

// The reductions an engine implements.
const (
	OpSum ReduceOp = iota
	OpMean
)

// String returns the op's Builder method name.
func (o ReduceOp) String() string { return [...]string{"Sum", "Mean"}[o] }

// Ops is what an engine adapter implements to provide a [Builder]. Wrap it
// with [NewBuilder], which validates every argument first, so an Ops method
// may assume shapes are compatible, axes are normalised and out is the
// correct result shape. Methods return errors only for engine failures.
// A panic inside an Ops method is recovered by the Builder and reported as an
// error naming the op.
type Ops interface {
	DType() DType
	Scalar(v float64) (Value, error)
	Constant(data []float64, s Shape) (Value, error)
	Unary(op UnaryOp, x Value) (Value, error)
	// Binary gets operands whose shapes broadcast to out.
	Binary(op BinaryOp, a, b Value, out Shape) (Value, error)
	MatMul(a, b Value) (Value, error)
	// BatchMatMul gets operands of rank >= 3 with equal batch axes and the
	// output shape.
	BatchMatMul(a, b Value, out Shape) (Value, error)
	// Reduce gets normalised, distinct axes (at least one).
	Reduce(op ReduceOp, x Value, axes []int) (Value, error)
	Reshape(x Value, s Shape) (Value, error)
	// Concat gets at least two operands, a normalised axis and the output
	// shape.
	Concat(xs []Value, axis int, out Shape) (Value, error)
	// Transpose gets a valid permutation (not the identity) and the output
	// shape.
	Transpose(x Value, perm []int, out Shape) (Value, error)
	// Slice gets a block inside x (not the whole of it); size is the
	// output shape.
	Slice(x Value, begin, size []int) (Value, error)
	// Conv2D gets normalised options and the output shape.
	Conv2D(x, kernel Value, o ConvOptions, out Shape) (Value, error)
	// MaxPool2D gets normalised options and the output shape.
	MaxPool2D(x Value, o PoolOptions, out Shape) (Value, error)
	ArgMax(x Value) (Value, error)
	OneHot(indices Value, depth int) (Value, error)
	// Cast gets an int32 value and returns it in the Func's float dtype.
	Cast(x Value) (Value, error)
	// Gather gets a table of rank >= 1, indices of the Func's float dtype
	// or int32, and the output shape.
	Gather(table, indices Value, out Shape) (Value, error)
	RandomUniform(s Shape) (Value, error)
	RandomNormal(s Shape) (Value, error)
	// RandomUniformFrom gets a (2,) seed and the output shape.
	RandomUniformFrom(seed Value, s Shape) (Value, error)
	// Where gets a condition (1 or 0), two operands whose shapes all
	// broadcast to out, and the output shape.
	Where(cond, a, b Value, out Shape) (Value, error)
	Grad(loss Value, wrt []Value) ([]Value, error)
	// CustomGradient gets forward and the inputs (at least one, all of
	// the Func's float dtype) whose gradients vjp gives, and returns
	// forward's value with no gradient through forward itself. When a
	// Grad reaches the result, the engine calls vjp with the result's
	// gradient; vjp returns one gradient per input, each of its input's
	// shape (the Builder has checked them), or an error for the Grad.
	CustomGradient(inputs []Value, forward Value, vjp func(upstream Value) ([]Value, error)) (Value, error)
}
