package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Rescaling computes x*Scale + Offset, like keras.layers.Rescaling (e.g.
// Scale 1/255 for pixels). ChannelScale and ChannelOffset give one value
// per entry of the last axis instead (per colour channel, say), as
// Keras's scale and offset lists do.
type Rescaling struct {
	Scale  float64 // Keras requires it; 0 here means 1
	Offset float64
	// ChannelScale and ChannelOffset, when set, replace Scale and Offset
	// with one value per entry of the input's last axis.
	ChannelScale, ChannelOffset []float64
	Base

	// The shapes of list-valued scale and offset as a config gave them
	// (such as (1, 1, 3)), to write them back the same way.
	scaleShape, offsetShape []int
}

// ClassName returns "Rescaling".
func (*Rescaling) ClassName() string { return "Rescaling" }

func (l *Rescaling) scale() float64 {
	if l.Scale == 0 {
		return 1
	}
	return l.Scale
}

// Build checks the per-channel values; the shape is kept.
func (l *Rescaling) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	channels := in[len(in)-1]
	for _, v := range []struct {
		name   string
		values []float64
	}{{"ChannelScale", l.ChannelScale}, {"ChannelOffset", l.ChannelOffset}} {
		if v.values != nil && len(v.values) != channels {
			return nil, fmt.Errorf("%s has %d values for an input of shape %v: give one per entry of the last axis (%d)", v.name, len(v.values), in, channels)
		}
	}
	return in.Clone(), nil
}

// Call rescales.
func (l *Rescaling) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	perChannel := func(v []float64) backend.Value {
		s := make(backend.Shape, len(x.Shape()))
		for i := range s {
			s[i] = 1
		}
		s[len(s)-1] = len(v)
		return b.Constant(v, s)
	}
	var y backend.Value
	if l.ChannelScale != nil {
		y = b.Mul(x, perChannel(l.ChannelScale))
	} else {
		y = b.Mul(x, b.Scalar(l.scale()))
	}
	switch {
	case l.ChannelOffset != nil:
		y = b.Add(y, perChannel(l.ChannelOffset))
	case l.Offset != 0:
		y = b.Add(y, b.Scalar(l.Offset))
	}
	return y
}

// GetConfig returns Keras's config.
func (l *Rescaling) GetConfig() (serialization.Config, error) {
	cfg := serialization.Config{"scale": l.scale(), "offset": l.Offset}
	if l.ChannelScale != nil {
		cfg["scale"] = serialization.NestedList(l.ChannelScale, channelShape(l.scaleShape, len(l.ChannelScale)))
	}
	if l.ChannelOffset != nil {
		cfg["offset"] = serialization.NestedList(l.ChannelOffset, channelShape(l.offsetShape, len(l.ChannelOffset)))
	}
	return cfg, nil
}

// channelShape is the shape a list of n per-channel values is written
// in: as read, or a flat list.
func channelShape(read []int, n int) []int {
	if read != nil {
		return read
	}
	return []int{n}
}

// readChannelValues reads a number or a per-channel list (any shape
// whose dimensions but the last are 1).
func readChannelValues(r *serialization.Reader, key string, def float64) (v float64, values []float64, shape []int) {
	values, shape = r.Numbers(key)
	switch {
	case values == nil:
		return def, nil, nil
	case len(shape) == 0:
		return values[0], nil, nil
	}
	for _, d := range shape[:len(shape)-1] {
		if d != 1 {
			r.Fail(key, "shape %v is not supported by kerasgo: give a number or one value per entry of the last axis", shape)
			return def, nil, nil
		}
	}
	return def, values, shape
}

func init() {
	mustRegister("Rescaling", func(r *serialization.Reader) (Layer, error) {
		l := &Rescaling{}
		l.Scale, l.ChannelScale, l.scaleShape = readChannelValues(r, "scale", 1)
		l.Offset, l.ChannelOffset, l.offsetShape = readChannelValues(r, "offset", 0)
		if l.Scale == 0 { // an explicit scale of 0 cannot be expressed in the struct
			r.Fail("scale", "0 is not supported by kerasgo")
		}
		return l, nil
	})
}

func (*Rescaling) takesUnknownDims() {}
