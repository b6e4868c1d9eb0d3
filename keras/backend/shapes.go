package backend

import "fmt"

// BroadcastShapes returns the shape NumPy broadcasting gives a op b, or an
// error naming both shapes.
func BroadcastShapes(a, b Shape) (Shape, error) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db, db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v cannot be broadcast together", a, b)
		}
	}
	return out, nil
}

// NormalizeAxes turns negative axes into positive ones and checks range and
// duplicates. With no axes it returns every axis.
func NormalizeAxes(rank int, axes []int) ([]int, error) {
	if len(axes) == 0 {
		all := make([]int, rank)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	seen := make(map[int]bool)
	out := make([]int, len(axes))
	for i, ax := range axes {
		if ax < 0 {
			ax += rank
		}
		if ax < 0 || ax >= rank {
			return nil, fmt.Errorf("axis %d is out of range for rank %d", axes[i], rank)
		}
		if seen[ax] {
			return nil, fmt.Errorf("axis %d appears twice", ax)
		}
		seen[ax] = true
		out[i] = ax
	}
	return out, nil
}

// ReducedShape drops the (normalised) axes from s.
func ReducedShape(s Shape, axes []int) Shape {
	drop := make(map[int]bool, len(axes))
	for _, a := range axes {
		drop[a] = true
	}
	out := Shape{}
	for i, d := range s {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return out
}

// ConvOutputSize is the output length of one spatial dimension of a
// convolution or pooling window in Keras's rules, and the padding before it
// (padding after is total-before).
func ConvOutputSize(in, window, stride int, p Padding) (out, padBefore, padTotal int) {
	if p == Same {
		out = (in + stride - 1) / stride
		padTotal = max((out-1)*stride+window-in, 0)
		return out, padTotal / 2, padTotal
	}
	if in < window {
		return 0, 0, 0
	}
	return (in-window)/stride + 1, 0, 0
}

// Normalized returns o with zero strides replaced by 1 and an empty padding
// by Valid.
func (o ConvOptions) Normalized() ConvOptions {
	for i := range o.Strides {
		if o.Strides[i] == 0 {
			o.Strides[i] = 1
		}
	}
	if o.Padding == "" {
		o.Padding = Valid
	}
	return o
}

// Normalized returns o with zero strides replaced by the window size and an
// empty padding by Valid.
func (o PoolOptions) Normalized() PoolOptions {
	for i := range o.Strides {
		if o.Strides[i] == 0 {
			o.Strides[i] = o.Size[i]
		}
	}
	if o.Padding == "" {
		o.Padding = Valid
	}
	return o
}

// Conv2DShape returns the output shape of Conv2D for an NHWC input and an
// HWIO kernel, or an error that names both shapes.
func Conv2DShape(x, k Shape, o ConvOptions) (Shape, error) {
	o = o.Normalized()
	if len(x) != 4 || len(k) != 4 {
		return nil, fmt.Errorf("Conv2D needs a rank-4 input (batch, height, width, channels) and a rank-4 kernel; got input %v and kernel %v", x, k)
	}
	if x[3] != k[2] {
		return nil, fmt.Errorf("Conv2D input has %d channels but the kernel expects %d (input %v, kernel %v)", x[3], k[2], x, k)
	}
	if o.Padding != Valid && o.Padding != Same {
		return nil, fmt.Errorf("unknown padding %q: use \"valid\" or \"same\"", o.Padding)
	}
	h, _, _ := ConvOutputSize(x[1], k[0], o.Strides[0], o.Padding)
	w, _, _ := ConvOutputSize(x[2], k[1], o.Strides[1], o.Padding)
	if h <= 0 || w <= 0 {
		return nil, fmt.Errorf("Conv2D kernel %dx%d is larger than the input's %dx%d spatial size (input %v)", k[0], k[1], x[1], x[2], x)
	}
	return Shape{x[0], h, w, k[3]}, nil
}

// ConcatShape returns the shape of Concat(axis, xs...): xs joined along
// axis (negative counts from the end), every other dimension equal.
func ConcatShape(axis int, xs ...Shape) (Shape, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("Concat needs at least one operand")
	}
	rank := len(xs[0])
	a := axis
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return nil, fmt.Errorf("Concat axis %d is out of range for rank-%d operands %v", axis, rank, xs[0])
	}
	out := xs[0].Clone()
	for _, s := range xs[1:] {
		if len(s) != rank {
			return nil, fmt.Errorf("Concat needs operands of one rank; got %v and %v", xs[0], s)
		}
		for d := range s {
			if d != a && s[d] != out[d] {
				return nil, fmt.Errorf("Concat along axis %d needs the other dimensions to match; got %v and %v", axis, xs[0], s)
			}
		}
		if out[a] >= 0 && s[a] >= 0 {
			out[a] += s[a]
		} else {
			out[a] = -1
		}
	}
	return out, nil
}

// MaxPool2DShape returns the output shape of MaxPool2D for an NHWC input.
func MaxPool2DShape(x Shape, o PoolOptions) (Shape, error) {
	o = o.Normalized()
	if len(x) != 4 {
		return nil, fmt.Errorf("MaxPool2D needs a rank-4 input (batch, height, width, channels); got %v", x)
	}
	if o.Size[0] <= 0 || o.Size[1] <= 0 || o.Strides[0] <= 0 || o.Strides[1] <= 0 {
		return nil, fmt.Errorf("MaxPool2D needs positive pool size and strides; got size %v strides %v", o.Size, o.Strides)
	}
	if o.Padding != Valid && o.Padding != Same {
		return nil, fmt.Errorf("unknown padding %q: use \"valid\" or \"same\"", o.Padding)
	}
	h, _, _ := ConvOutputSize(x[1], o.Size[0], o.Strides[0], o.Padding)
	w, _, _ := ConvOutputSize(x[2], o.Size[1], o.Strides[1], o.Padding)
	// An axis of unknown length (-1, a model's Keras None) stays unknown.
	if x[1] < 0 {
		h = -1
	}
	if x[2] < 0 {
		w = -1
	}
	if h == 0 || w == 0 {
		return nil, fmt.Errorf("MaxPool2D window %v is larger than the input's spatial size (input %v)", o.Size, x)
	}
	return Shape{x[0], h, w, x[3]}, nil
}
