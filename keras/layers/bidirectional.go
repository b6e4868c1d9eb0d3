package layers

import (
	"encoding/json"
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Bidirectional runs a recurrent layer over the sequence forwards and a
// copy of it backwards and merges their outputs, like
// keras.layers.Bidirectional. With ReturnSequences, the backward layer's
// outputs are put back in the sequence's order before merging, so step t
// of the output sees the whole sequence.
//
//	layers.Apply(&layers.Bidirectional{Layer: &layers.LSTM{Units: 64, ReturnSequences: true}}, x)
type Bidirectional struct {
	// Layer is the forward layer: an LSTM, GRU or SimpleRNN.
	Layer Layer
	// BackwardLayer is optional; by default it is Layer's copy with
	// GoBackwards flipped (Keras's default). It must produce the same
	// shape.
	BackwardLayer Layer
	// MergeMode combines the two outputs: "concat" (default), "sum",
	// "mul" or "ave"; "none" (Keras's merge_mode=None) returns them
	// separately, forward first (layers.ApplyOutputs gives both).
	MergeMode string
	Base

	forward, backward Layer
	built             backend.Shape   // the input shape the layer was built for
	out               backend.Shape   // the (first) output's shape
	outs              []backend.Shape // both outputs' shapes with merge mode "none"
}

// MergeNone is Bidirectional's MergeMode for Keras's merge_mode=None.
const MergeNone = "none"

// ClassName returns "Bidirectional".
func (*Bidirectional) ClassName() string { return "Bidirectional" }

// recurrent is what Bidirectional needs of the layer it wraps.
type recurrentLayer interface {
	Layer
	settings() recurrentSettings
	setZeroOutputForMask(bool)
}

func (l *Bidirectional) mergeMode() string {
	if l.MergeMode == "" {
		return "concat"
	}
	return l.MergeMode
}

// Build builds both directions and collects their weights, renamed by
// direction ("forward_lstm/kernel") as Keras names them.
func (l *Bidirectional) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.built != nil { // applied again: the same weights, if the shape fits
		if len(inputs) != 1 || !inputs[0].Equal(l.built) {
			return nil, fmt.Errorf("was built for input %v, cannot be applied to %v", l.built, inputs)
		}
		return l.out.Clone(), nil
	}
	switch l.mergeMode() {
	case "concat", "sum", "mul", "ave", MergeNone:
	default:
		return nil, fmt.Errorf("merge_mode must be \"concat\", \"sum\", \"mul\", \"ave\" or \"none\", got %q", l.MergeMode)
	}
	fwd, bwd, err := l.directions()
	if err != nil {
		return nil, err
	}
	fo, err := fwd.Build(inputs)
	if err != nil {
		return nil, fmt.Errorf("forward layer: %w", err)
	}
	bo, err := bwd.Build(inputs)
	if err != nil {
		return nil, fmt.Errorf("backward layer: %w", err)
	}
	for _, sub := range []Layer{fwd, bwd} {
		if mo, ok := sub.(MultiOutput); ok && len(mo.OutputShapes()) > 1 {
			return nil, fmt.Errorf("the wrapped %s has ReturnState, which Bidirectional does not support yet", sub.ClassName())
		}
	}
	if !fo.Equal(bo) {
		return nil, fmt.Errorf("the forward layer gives %v and the backward layer %v: they must match", fo, bo)
	}
	l.weights = nil
	for _, sub := range []Layer{fwd, bwd} {
		for _, w := range sub.Common().Weights() {
			w.Name = sub.Common().Name + "/" + w.Name
			l.weights = append(l.weights, w)
		}
	}
	out := fo.Clone()
	if l.mergeMode() == "concat" {
		out[len(out)-1] *= 2
	}
	if l.mergeMode() == MergeNone {
		l.outs = []backend.Shape{fo.Clone(), bo.Clone()}
	}
	l.built, l.out = inputs[0].Clone(), out
	return out.Clone(), nil
}

// OutputShapes gives both directions' output shapes with merge mode
// "none", and nil (one output) otherwise.
func (l *Bidirectional) OutputShapes() []backend.Shape { return l.outs }

// directions returns the forward and backward layers, named as Keras
// names them, making the backward one from the forward one's config
// unless BackwardLayer is set.
func (l *Bidirectional) directions() (fwd, bwd Layer, err error) {
	if l.forward != nil {
		return l.forward, l.backward, nil
	}
	f, ok := l.Layer.(recurrentLayer)
	if !ok {
		return nil, nil, fmt.Errorf("wraps an LSTM, GRU or SimpleRNN; got %T", l.Layer)
	}
	bwd = l.BackwardLayer
	if bwd == nil {
		cfg, err := Config(f)
		if err != nil {
			return nil, nil, err
		}
		cfg["go_backwards"] = !f.settings().goBackwards
		cfg["name"] = ""
		// The config as a file holds it (JSON values), which FromConfig reads.
		data, err := json.Marshal(cfg)
		if err != nil {
			return nil, nil, err
		}
		var decoded serialization.Config
		if err := json.Unmarshal(data, &decoded); err != nil {
			return nil, nil, err
		}
		if bwd, err = FromConfig(f.ClassName(), decoded); err != nil {
			return nil, nil, err
		}
	}
	if _, ok := bwd.(recurrentLayer); !ok {
		return nil, nil, fmt.Errorf("the backward layer must be an LSTM, GRU or SimpleRNN; got %T", bwd)
	}
	if f.Common().Name == "" {
		f.Common().Name = "forward_" + serialization.SnakeCase(f.ClassName())
	}
	if bwd.Common().Name == "" {
		bwd.Common().Name = "backward_" + serialization.SnakeCase(bwd.ClassName())
	}
	// As Keras's Bidirectional: its layers output zeros at masked steps
	// when they return sequences.
	seq := f.settings().returnSequences
	f.setZeroOutputForMask(seq)
	bwd.(recurrentLayer).setZeroOutputForMask(seq)
	l.forward, l.backward = f, bwd
	return f, bwd, nil
}

// Call runs both directions and merges them (with merge mode "none", it
// returns the forward output; CallOutputs returns both).
func (l *Bidirectional) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	y, yb := l.directionOutputs(ctx, in)
	switch l.mergeMode() {
	case MergeNone:
		return y
	case "sum":
		return b.Add(y, yb)
	case "mul":
		return b.Mul(y, yb)
	case "ave":
		return b.Mul(b.Add(y, yb), b.Scalar(0.5))
	}
	return b.Concat(-1, y, yb)
}

// CallOutputs returns the forward and the backward outputs (merge mode
// "none"), the backward one in the sequence's order.
func (l *Bidirectional) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	if l.mergeMode() != MergeNone {
		return []backend.Value{l.Call(ctx, in)}
	}
	y, yb := l.directionOutputs(ctx, in)
	return []backend.Value{y, yb}
}

func (l *Bidirectional) directionOutputs(ctx *Context, in []backend.Value) (y, yb backend.Value) {
	y = l.forward.Call(ctx, in)
	yb = l.backward.Call(ctx, in)
	// Keras calls each direction's layer, which adds its own activity
	// penalty (TimeDistributed, by contrast, calls its layer's call,
	// which does not: kerasgo does the same).
	ctx.addActivityPenalty(l.forward, y)
	ctx.addActivityPenalty(l.backward, yb)
	if l.forward.(recurrentLayer).settings().returnSequences {
		yb = reverseSteps(ctx.B, yb)
	}
	return y, yb
}

// ComputeMask passes the input's mask on with ReturnSequences (the
// outputs are in the sequence's order).
func (l *Bidirectional) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	if l.forward == nil {
		return nil
	}
	s := l.forward.(recurrentLayer).settings()
	s.goBackwards = false
	return sequenceMask(ctx.B, s, m)
}

// reverseSteps reverses a (batch, steps, features) sequence along its
// steps.
func reverseSteps(b backend.Builder, x backend.Value) backend.Value {
	s := x.Shape()
	if s[1] == 1 {
		return x
	}
	parts := make([]backend.Value, s[1])
	for t := range s[1] {
		parts[s[1]-1-t] = b.Slice(x, []int{0, t, 0}, []int{s[0], 1, s[2]})
	}
	return b.Concat(1, parts...)
}

// SavedGroups keeps each direction's variables where Keras does:
// forward_layer/cell and backward_layer/cell.
func (l *Bidirectional) SavedGroups() []SavedGroup {
	var out []SavedGroup
	for _, d := range []struct {
		path  string
		layer Layer
	}{{"forward_layer", l.forward}, {"backward_layer", l.backward}} {
		if d.layer == nil {
			continue
		}
		for _, g := range d.layer.(SavedGrouper).SavedGroups() {
			out = append(out, SavedGroup{Path: d.path + "/" + g.Path, Weights: g.Weights})
		}
	}
	return out
}

// GetConfig returns Keras's config: the forward layer, the backward layer
// and the merge mode.
func (l *Bidirectional) GetConfig() (serialization.Config, error) {
	fwd, bwd, err := l.directions()
	if err != nil {
		return nil, err
	}
	cfg := serialization.Config{"merge_mode": l.mergeMode()}
	if l.mergeMode() == MergeNone {
		cfg["merge_mode"] = nil
	}
	for key, sub := range map[string]Layer{"layer": fwd, "backward_layer": bwd} {
		o, err := Object(sub)
		if err != nil {
			return nil, err
		}
		cfg[key] = o
	}
	return cfg, nil
}

func init() {
	mustRegister("Bidirectional", func(r *serialization.Reader) (Layer, error) {
		l := &Bidirectional{MergeMode: r.String("merge_mode", "concat")}
		if r.IsNull("merge_mode") { // Keras's merge_mode=None: the two directions' outputs returned separately
			l.MergeMode = MergeNone
		}
		sub := func(key string) (Layer, error) {
			v, ok := r.Value(key)
			if !ok || v == nil {
				return nil, nil
			}
			return FromObject(v, key)
		}
		var err error
		if l.Layer, err = sub("layer"); err != nil {
			return nil, err
		}
		if l.Layer == nil {
			return nil, fmt.Errorf("the config has no layer to wrap")
		}
		if l.BackwardLayer, err = sub("backward_layer"); err != nil {
			return nil, err
		}
		return l, nil
	})
}

func (*Bidirectional) takesUnknownDims() {}
