package layers_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// An Operation reads Keras's constant operands (a number, or a
// "__tensor__" of nested lists) and refuses what is not one, and its
// operands must broadcast; TestKerasCatalogue checks its values against
// Keras (the op_ cases).
func TestOperationConstantsAndShapes(t *testing.T) {
	tensor := func(v any) any {
		return map[string]any{"class_name": "__tensor__", "config": map[string]any{"value": v, "dtype": "float32"}}
	}
	op, _ := layers.NewOperation("Add")
	if err := op.SetConstantOperand(1, tensor([]any{[]any{1.0, 2.0}, []any{3.0, 4.0}})); err != nil {
		t.Fatal(err)
	}
	if c := op.Constants[1]; !c.Shape.Equal(backend.Shape{2, 2}) || len(c.Data) != 4 || c.Data[3] != 4 {
		t.Errorf("read %+v, want a (2, 2) tensor 1..4", c)
	}
	if out, err := op.Build([]backend.Shape{{-1, 3, 2, 2}}); err != nil || !out.Equal(backend.Shape{-1, 3, 2, 2}) {
		t.Errorf("Build = %v, %v; want (-1, 3, 2, 2)", out, err)
	}
	if _, err := op.Build([]backend.Shape{{-1, 3}}); err == nil || !strings.Contains(err.Error(), "do not broadcast") {
		t.Errorf("operands (-1, 3) and (2, 2): error %v, want one saying they do not broadcast", err)
	}
	for _, c := range []struct {
		arg  any
		want string
	}{
		{tensor([]any{[]any{1.0, 2.0}, []any{3.0}}), "nested list of numbers of one shape"},
		{tensor([]any{"a"}), "nested list of numbers of one shape"},
		{map[string]any{"class_name": "__keras_tensor__"}, "want a tensor, a number or a constant tensor"},
	} {
		op, _ := layers.NewOperation("Multiply")
		if err := op.SetConstantOperand(0, c.arg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.arg, err, c.want)
		}
	}
	if _, ok := layers.NewOperation("Einsum"); ok {
		t.Error("NewOperation made an Einsum, which kerasgo's Operation does not compute")
	}
}
