package layers

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// stack holds layers every way Keras tracks them: a field, a slice, a
// map, plus fields that are not tracked.
type stack struct {
	Base
	Head    *Dense
	blocks  []Layer
	byName  map[string]*Dense
	skipped *Dense `keras:"-"`
	self    Layer  // the stack itself: not its own sublayer
	w       *Weight
	Units   int
}

func (*stack) ClassName() string                                   { return "Stack" }
func (*stack) Build(in []backend.Shape) (backend.Shape, error)     { return in[0], nil }
func (*stack) Call(ctx *Context, in []backend.Value) backend.Value { return in[0] }

func TestSublayersFollowKerasTracking(t *testing.T) {
	head, b0, b1, named := &Dense{Units: 1}, &Dense{Units: 2}, &Dropout{Rate: 0.1}, &Dense{Units: 3}
	s := &stack{Head: head, blocks: []Layer{b0, b1, nil, b0}, byName: map[string]*Dense{"x": named}, skipped: &Dense{}, w: &Weight{}, Units: 2}
	s.self = s
	got := Sublayers(s)
	want := []Sublayer{{"head", head}, {"blocks/dense", b0}, {"blocks/dropout", b1}, {"by_name/dense", named}}
	if len(got) != len(want) {
		t.Fatalf("Sublayers = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sublayer %d = %v, want %v", i, got[i], want[i])
		}
	}
	// Freezing the stack freezes them; a later unfreeze of one wins.
	SetTrainable(s, false)
	if head.Trainable() || b0.Trainable() || named.Trainable() {
		t.Fatal("freezing the stack left a sublayer trainable")
	}
	b0.SetTrainable(true)
	if !b0.Trainable() || head.Trainable() {
		t.Fatal("unfreezing one sublayer changed another")
	}
	s.SetTrainable(false)
	if b0.Trainable() {
		t.Fatal("freezing the stack again left b0 trainable")
	}
}
