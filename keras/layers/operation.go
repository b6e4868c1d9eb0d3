package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Operation is an elementwise keras.ops function of two operands as Keras
// writes it into a functional model's config, a layer of module
// keras.src.ops.numpy: `x + table`, `x * 2`, `ops.maximum(x, y)`. Each
// operand is a tensor (a model value, with its batch) or a constant: a
// number, or a tensor Keras writes whole into the config (its
// "__tensor__" arguments). The operands broadcast as NumPy's do, a
// constant against the trailing axes of a value. Keras's merge layers
// (Add([a, b])) are other classes of the same names.
type Operation struct {
	// Op is Keras's class: Add, Subtract, Multiply, Divide, TrueDivide,
	// Maximum or Minimum.
	Op string
	// Constants are the constant operands by position (0 or 1); the
	// other position is the layer's input.
	Constants map[int]Constant
	Base
}

// Constant is a constant operand of an Operation: a number (Shape nil) or
// a tensor of Shape.
type Constant struct {
	Shape backend.Shape
	Data  []float64
	DType string // Keras's dtype of a tensor ("float32")
}

// operationFuncs are the Operations kerasgo has, by Keras's class.
var operationFuncs = map[string]func(b backend.Builder, x, y backend.Value) backend.Value{
	"Add": backend.Builder.Add, "Subtract": backend.Builder.Sub, "Multiply": backend.Builder.Mul,
	"Divide": backend.Builder.Div, "TrueDivide": backend.Builder.Div,
	"Maximum": backend.Builder.Maximum, "Minimum": backend.Builder.Minimum,
}

// NewOperation returns the Operation of Keras's class op (module
// keras.src.ops.numpy), or false when kerasgo has none.
func NewOperation(op string) (*Operation, bool) {
	if _, ok := operationFuncs[op]; !ok {
		return nil, false
	}
	return &Operation{Op: op}, true
}

// ClassName returns Op.
func (l *Operation) ClassName() string { return l.Op }

// operands returns the shapes of the two operands, the inputs' and the
// constants' in their places.
func (l *Operation) operands(inputs []backend.Shape) ([]backend.Shape, error) {
	if len(inputs)+len(l.Constants) != 2 {
		return nil, fmt.Errorf("%s takes two operands, got %d inputs and %d constants", l.Op, len(inputs), len(l.Constants))
	}
	out := make([]backend.Shape, 2)
	next := 0
	for i := range out {
		if c, ok := l.Constants[i]; ok {
			out[i] = c.Shape
			continue
		}
		out[i] = inputs[next]
		next++
	}
	return out, nil
}

// Build gives the operands' broadcast shape.
func (l *Operation) Build(inputs []backend.Shape) (backend.Shape, error) {
	if _, ok := operationFuncs[l.Op]; !ok {
		return nil, fmt.Errorf("kerasgo has no operation %q", l.Op)
	}
	ops, err := l.operands(inputs)
	if err != nil {
		return nil, err
	}
	return broadcastShapes(ops[0], ops[1])
}

// broadcastShapes is NumPy's broadcast of two shapes, aligned at their
// last axes; -1 (the batch, or any length) broadcasts as a length of its
// own.
func broadcastShapes(a, b backend.Shape) (backend.Shape, error) {
	n := max(len(a), len(b))
	out := make(backend.Shape, n)
	for i := 1; i <= n; i++ {
		da, db := 1, 1
		if i <= len(a) {
			da = a[len(a)-i]
		}
		if i <= len(b) {
			db = b[len(b)-i]
		}
		switch {
		case da == db || db == 1:
			out[n-i] = da
		case da == 1:
			out[n-i] = db
		case da == -1 || db == -1:
			out[n-i] = -1
		default:
			return nil, fmt.Errorf("operands of shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// Call computes the operation.
func (l *Operation) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	vals := make([]backend.Value, 2)
	next := 0
	for i := range vals {
		if c, ok := l.Constants[i]; ok {
			if c.Shape == nil {
				vals[i] = b.Scalar(c.Data[0])
			} else {
				vals[i] = b.Constant(c.Data, c.Shape)
			}
			continue
		}
		x := in[next]
		if x.DType() == backend.Int32 {
			x = b.Cast(x)
		}
		vals[i] = x
		next++
	}
	return operationFuncs[l.Op](b, vals[0], vals[1])
}

// GetConfig returns Keras's config (an operation's: its name only).
func (l *Operation) GetConfig() (serialization.Config, error) { return serialization.Config{}, nil }

// PositionalInputs: Keras calls an operation with its operands as
// separate arguments; it records no build_config.
func (*Operation) PositionalInputs() []string { return nil }

// ConstantOperands gives the constants as Keras writes them among the
// arguments: a number, or a "__tensor__" with its value and dtype.
func (l *Operation) ConstantOperands() []any {
	var out []any
	for i := range 2 {
		if c, ok := l.Constants[i]; ok {
			out = append(out, c.argument())
		}
	}
	return out
}

// Arguments places the constants among the tensors' arguments, in
// Keras's order of the operands.
func (l *Operation) Arguments(tensors []any) []any {
	out := make([]any, 0, 2)
	next := 0
	for i := range 2 {
		if c, ok := l.Constants[i]; ok {
			out = append(out, c.argument())
			continue
		}
		if next < len(tensors) {
			out = append(out, tensors[next])
			next++
		}
	}
	return out
}

// argument is the constant as Keras writes it in a call's arguments.
func (c Constant) argument() any {
	if c.Shape == nil {
		return c.Data[0]
	}
	return map[string]any{"class_name": "__tensor__", "config": map[string]any{"value": serialization.NestedList(c.Data, c.Shape), "dtype": c.DType}}
}

// SetConstantOperand reads the operand at position: a number, or a
// "__tensor__" of nested lists of numbers.
func (l *Operation) SetConstantOperand(position int, v any) error {
	if position < 0 || position > 1 {
		return fmt.Errorf("%s takes two operands, got an argument at position %d", l.Op, position)
	}
	if l.Constants == nil {
		l.Constants = map[int]Constant{}
	}
	if f, ok := v.(float64); ok {
		l.Constants[position] = Constant{Data: []float64{f}}
		return nil
	}
	obj, _ := v.(map[string]any)
	cfg, _ := obj["config"].(map[string]any)
	if obj["class_name"] != "__tensor__" || cfg == nil {
		return fmt.Errorf("%s: argument %d is %v: want a tensor, a number or a constant tensor (\"__tensor__\")", l.Op, position, v)
	}
	r := serialization.NewReader(fmt.Sprintf("%s: the constant tensor of argument %d", l.Op, position), cfg)
	data, shape := r.Numbers("value")
	dtype := r.String("dtype", "float32")
	if err := r.Finish(); err != nil {
		return err
	}
	if data == nil {
		return fmt.Errorf("%s: the constant tensor of argument %d has no value", l.Op, position)
	}
	l.Constants[position] = Constant{Shape: backend.Shape(shape), Data: data, DType: dtype}
	return nil
}

func (*Operation) kerasOperation() {}

// takesUnknownDims: an operation reads its operands' lengths from them.
func (*Operation) takesUnknownDims() {}
