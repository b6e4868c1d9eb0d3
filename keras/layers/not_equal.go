package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// NotEqual is Keras's keras.ops.not_equal(x, value) as it appears in a
// functional model's config: Keras 3 writes the mask that Embedding with
// mask_zero or Masking computes as a NotEqual (then an Any over the
// features) whose output is passed as the next layer's mask argument. Its
// output is 1 where x differs from Value and 0 where it equals it (Keras's
// bool, as kerasgo's masks are 0 and 1).
type NotEqual struct {
	Value float64 // the operand compared with (Keras's second argument)
	Base
}

// ClassName returns "NotEqual".
func (*NotEqual) ClassName() string { return "NotEqual" }

// Build keeps the input's shape.
func (l *NotEqual) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call compares (token ids are cast to floats first).
func (l *NotEqual) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	if x.DType() == backend.Int32 {
		x = b.Cast(x)
	}
	d := b.Sub(x, b.Scalar(l.Value))
	return b.Greater(b.Mul(d, d), b.Scalar(0))
}

// GetConfig returns Keras's config (an operation's: its name only).
func (l *NotEqual) GetConfig() (serialization.Config, error) { return serialization.Config{}, nil }

// ConstantOperands gives Value, Keras's second argument.
func (l *NotEqual) ConstantOperands() []any { return []any{l.Value} }

// SetConstantOperand reads Value from Keras's second argument.
func (l *NotEqual) SetConstantOperand(position int, v any) error {
	f, ok := v.(float64)
	if position != 1 || !ok {
		return fmt.Errorf("NotEqual takes a tensor and a number, got %v as argument %d", v, position)
	}
	l.Value = f
	return nil
}

func (*NotEqual) kerasOperation() {}

// takesUnknownDims: it compares elementwise, whatever the lengths (Keras 3 records it on a Masking layer's input of unknown length).
func (*NotEqual) takesUnknownDims() {}

func init() {
	mustRegister("NotEqual", func(r *serialization.Reader) (Layer, error) { return &NotEqual{}, nil })
}
