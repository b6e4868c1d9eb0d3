package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Dot is the sample-wise dot product of two inputs along an axis each,
// like keras.layers.Dot (Keras's batch_dot): (batch, n) and (batch, n)
// give (batch, 1); (batch, n, d) and (batch, m, d) with Axes {2, 2} give
// (batch, n, m). With Normalize, the inputs are L2-normalised along those
// axes first, so the result is the cosine similarity.
type Dot struct {
	// Axes are the axes (counted with the batch as 0; negative from the
	// end) of the two inputs to multiply along. The zero value is
	// {-1, -1}, the last axes.
	Axes      [2]int
	Normalize bool
	Base
}

// ClassName returns "Dot".
func (*Dot) ClassName() string { return "Dot" }

func (l *Dot) axes(a, b backend.Shape) (int, int) {
	x, y := l.Axes[0], l.Axes[1]
	if l.Axes == ([2]int{}) {
		x, y = -1, -1
	}
	if x < 0 {
		x += len(a)
	}
	if y < 0 {
		y += len(b)
	}
	return x, y
}

// Build checks that the axes have one size and returns the product's
// shape: the first input's other axes, then the second's.
func (l *Dot) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("expects exactly 2 inputs, received %d", len(inputs))
	}
	a, b := inputs[0], inputs[1]
	x, y := l.axes(a, b)
	if x < 1 || x >= len(a) || y < 1 || y >= len(b) {
		return nil, fmt.Errorf("axes %v are out of range for inputs %v and %v (axis 0 is the batch)", l.Axes, a, b)
	}
	if a[x] != b[y] {
		return nil, fmt.Errorf("incompatible input shapes: axis %d of %v has size %d, axis %d of %v has %d", x, a, a[x], y, b, b[y])
	}
	out := backend.Shape{a[0]}
	out = append(out, without(a[1:], x-1)...)
	out = append(out, without(b[1:], y-1)...)
	if len(out) == 1 {
		out = append(out, 1)
	}
	return out, nil
}

func without(s backend.Shape, i int) backend.Shape {
	return append(s[:i].Clone(), s[i+1:]...)
}

// Call moves the axes last and multiplies every row of one by every row
// of the other, sample by sample (BatchMatMul).
func (l *Dot) Call(ctx *Context, in []backend.Value) backend.Value {
	bl := ctx.B
	a, b := in[0], in[1]
	sa, sb := a.Shape(), b.Shape()
	x, y := l.axes(sa, sb)
	last := func(v backend.Value, s backend.Shape, axis int) backend.Value {
		perm := []int{0}
		for i := 1; i < len(s); i++ {
			if i != axis {
				perm = append(perm, i)
			}
		}
		v = bl.Transpose(v, append(perm, axis)...)
		if l.Normalize {
			k := len(s) - 1
			norm := bl.Reshape(bl.Sqrt(bl.Maximum(bl.Sum(bl.Square(v), k), bl.Scalar(1e-12))), append(v.Shape()[:k].Clone(), 1))
			v = bl.Div(v, norm)
		}
		return v
	}
	a, b = last(a, sa, x), last(b, sb, y)
	n, k := sa[0], sa[x]
	ra, rb := sa.Size()/n/k, sb.Size()/n/k
	prod := bl.BatchMatMul(bl.Reshape(a, backend.Shape{n, ra, k}), bl.Reshape(bl.Transpose(bl.Reshape(b, backend.Shape{n, rb, k}), 0, 2, 1), backend.Shape{n, k, rb}))
	out := backend.Shape{n}
	out = append(out, without(sa[1:], x-1)...)
	out = append(out, without(sb[1:], y-1)...)
	if len(out) == 1 {
		out = append(out, 1)
	}
	return bl.Reshape(prod, out)
}

// GetConfig returns Keras's config.
func (l *Dot) GetConfig() (serialization.Config, error) {
	axes := l.Axes
	if axes == ([2]int{}) {
		axes = [2]int{-1, -1}
	}
	return serialization.Config{"axes": []any{axes[0], axes[1]}, "normalize": l.Normalize}, nil
}

func init() {
	mustRegister("Dot", func(r *serialization.Reader) (Layer, error) {
		d := &Dot{Normalize: r.Bool("normalize", false)}
		v, _ := r.Value("axes")
		switch a := v.(type) {
		case float64:
			d.Axes = [2]int{int(a), int(a)}
		case []any:
			if len(a) == 2 {
				x, ok1 := a[0].(float64)
				y, ok2 := a[1].(float64)
				if ok1 && ok2 {
					d.Axes = [2]int{int(x), int(y)}
					break
				}
			}
			r.Fail("axes", "want an integer or two, got %v", v)
		default:
			r.Fail("axes", "want an integer or two, got %v", v)
		}
		if d.Axes == ([2]int{}) {
			r.Fail("axes", "axis 0 is the batch: give the axes to multiply along")
		}
		return d, nil
	})
}

func (*Dot) takesUnknownDims() {}
