package layers_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// heldSequence is a layer of one's own that holds layers, takes any
// length (AnyLength) and is built from its Call.
type heldSequence struct {
	layers.Base
	Inner layers.Layer
}

func (*heldSequence) ClassName() string { return "HeldSequence" }
func (*heldSequence) TakesAnyLength()   {}
func (h *heldSequence) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return ctx.Apply(h.Inner, in[0])
}

// plainSequence is the same without AnyLength.
type plainSequence struct {
	layers.Base
	Inner layers.Layer
}

func (*plainSequence) ClassName() string { return "PlainSequence" }
func (p *plainSequence) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return ctx.Apply(p.Inner, in[0])
}

// A layer of one's own that implements AnyLength takes an input of any
// length and gives -1 where its output's length is the input's; one that
// does not, or one that holds a layer that cannot take any length, is
// refused with an error that says so.
func TestLayersOfOneOwnTakeAnyLength(t *testing.T) {
	out := layers.Apply(&heldSequence{Inner: &layers.Dense{Units: 3}}, layers.Input(-1, 4))
	if out.Err() != nil || !out.Shape().Equal(backend.Shape{-1, -1, 3}) {
		t.Fatalf("AnyLength layer over Dense: shape %v, %v; want (-1, -1, 3)", out.Shape(), out.Err())
	}
	for _, c := range []struct {
		name  string
		layer layers.Layer
		want  string
	}{
		{"without AnyLength", &plainSequence{Inner: &layers.Dense{Units: 3}}, "layers.AnyLength"},
		{"holding Flatten", &heldSequence{Inner: &layers.Flatten{}}, "Flatten"},
	} {
		out := layers.Apply(c.layer, layers.Input(-1, 4))
		if out.Err() == nil || !strings.Contains(out.Err().Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s", c.name, out.Err(), c.want)
		}
	}
}
