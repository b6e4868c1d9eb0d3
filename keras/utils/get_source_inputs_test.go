package utils_test

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// The inputs a value is computed from, each once and in Keras's
// depth-first order, through a layer applied twice and a merge.
func TestGetSourceInputs(t *testing.T) {
	a, b := layers.Input(3), layers.Input(3)
	shared := &layers.Dense{Units: 3}
	x := layers.Apply(&layers.Add{}, layers.Apply(shared, a), layers.Apply(shared, b), layers.Apply(shared, a))
	got := utils.GetSourceInputs(x)
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("GetSourceInputs gave %d inputs (%v), want a then b", len(got), got)
	}
	if in := utils.GetSourceInputs(a); len(in) != 1 || in[0] != a {
		t.Errorf("an input's source inputs are %v, want itself", in)
	}
}
