package layers

import (
	"errors"
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Build is the Build of a layer that defines none of its own: a layer or
// a model written as Go code whose Call applies its sublayers with
// Context.Apply, as Keras's subclassed Layer or Model with only a call
// method. It runs the layer's Call once on shapes alone (BuildByCall),
// which builds each sublayer from the shapes it receives, and returns the
// output's shape. A layer that defines Build uses its own.
func (c *Base) Build(in []backend.Shape) (backend.Shape, error) {
	if c.self == nil {
		return nil, errors.New("the layer defines no Build and was not applied with layers.Apply, which builds it from its Call: apply it, or define Build")
	}
	return BuildByCall(c.self, in)
}

// BuildByCall builds l by running its Call once on shape-only values
// (nothing is computed), the batch of an unknown size taken as 1: the
// sublayers its Call applies with Context.Apply are built on their first
// call, from the shapes they receive, as Keras builds a layer the first
// time it is called. It returns the output's shape, the batch as given.
// An unknown length besides the batch (a layer that implements
// AnyLength) is traced as a stand-in length, which the sublayers see as
// -1 and the output's shape gives as -1.
func BuildByCall(l Layer, in []backend.Shape) (backend.Shape, error) {
	bindSelf(l)
	specs := make([]backend.Spec, len(in))
	anyLength := false
	for i, s := range in {
		concrete := s.Clone()
		for d := range concrete {
			if concrete[d] < 0 {
				if d > 0 {
					if !takesUnknownDims(l) {
						return nil, fmt.Errorf("input %d has shape %v: a layer built from its Call needs every length but the batch, unless it implements layers.AnyLength", i, s)
					}
					concrete[d] = standInLength
					anyLength = true
					continue
				}
				concrete[d] = 1
			}
		}
		specs[i] = backend.Spec{Shape: concrete, DType: backend.Float32}
	}
	info, err := backend.Trace(func(b backend.Builder, vals []backend.Value) ([]backend.Value, error) {
		ctx := &Context{B: b, Values: map[*Weight]backend.Value{}, tracing: true, standIn: anyLength}
		y := l.Call(ctx, vals)
		if err := b.Err(); err != nil {
			return nil, err
		}
		if y == nil {
			return nil, errors.New("Call returned nil")
		}
		return []backend.Value{y}, nil
	}, specs)
	if err != nil {
		return nil, err
	}
	out := info.Outputs[0].Clone()
	if len(in) > 0 && len(in[0]) > 0 && in[0][0] < 0 && len(out) > 0 {
		out[0] = -1
	}
	if anyLength {
		unknownStandIn(out)
	}
	return out, nil
}

// standInLength is the length BuildByCall traces an unknown length (-1
// besides the batch) as: a prime no real layer size is likely to equal,
// so that the lengths that come from it can be told apart.
const standInLength = 1021

// unknownStandIn puts -1 back for the stand-in length in s (the batch
// aside).
func unknownStandIn(s backend.Shape) {
	for d := 1; d < len(s); d++ {
		if s[d] == standInLength {
			s[d] = -1
		}
	}
}

// Apply calls the sublayer l on values inside a layer's Call, as calling
// a Keras layer inside call: the first time, while the layer holding it
// is built from its Call (BuildByCall), it builds l from the shapes it
// receives. Hold l in a field of the layer, so that its variables are the
// layer's (see Sublayers).
//
// Masks follow the values, as Keras's _keras_mask does: l sees each
// input's own mask (KerasMask; the layer's inputs carry theirs, a value
// an op computed carries none), and its output carries the mask l
// computes (Masker). To call l with another mask, as Keras's
// layer(x, mask=m), set it on the value first: ctx.SetKerasMask(x, m).
func (ctx *Context) Apply(l Layer, inputs ...backend.Value) backend.Value {
	if l == nil {
		return ctx.B.Fail(nil, errors.New("Context.Apply: the layer is nil"))
	}
	bindSelf(l)
	c := l.Common()
	if ctx.tracing && !c.builtInCall {
		shapes := make([]backend.Shape, len(inputs))
		for i, v := range inputs {
			if v == nil {
				return ctx.B.Fail(nil, fmt.Errorf("Context.Apply: input %d of layer %s is nil", i, Describe(l)))
			}
			shapes[i] = v.Shape().Clone()
			if len(shapes[i]) > 0 {
				shapes[i][0] = -1 // the batch, as Keras builds with None
			}
			if ctx.standIn {
				unknownStandIn(shapes[i])
			}
		}
		if s := unknownBesidesBatch(shapes); s != nil && !takesUnknownDims(l) {
			return ctx.B.Fail(nil, fmt.Errorf("layer %s: input shape %v has a dimension of unknown length (-1, Keras's None) besides the batch, which kerasgo's %s cannot take yet (%s can, and a layer of your own that implements layers.AnyLength)", Describe(l), s, l.ClassName(), unknownDimsLayers))
		}
		if _, err := l.Build(shapes); err != nil {
			return ctx.B.Fail(nil, fmt.Errorf("layer %s: %w", Describe(l), err))
		}
		c.builtInCall = true
	}
	masks := make([]backend.Value, len(inputs))
	for i, v := range inputs {
		masks[i] = ctx.KerasMask(v)
	}
	inner := ctx.WithMasks(masks)
	y := callAutocast(inner, l, inputs, func(in []backend.Value) []backend.Value { return []backend.Value{l.Call(inner, in)} })[0]
	if mk, ok := l.(Masker); ok && ctx.KerasMask(y) == nil {
		ctx.SetKerasMask(y, mk.ComputeMask(inner, inputs, masks))
	}
	return y
}
