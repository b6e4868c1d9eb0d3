package ops

import "github.com/kerasgo/kerasgo/keras/backend"

// ShapeOf is x's shape (Keras's ops.shape): known when the computation is
// built, so a plain Go value.
func ShapeOf(x Value) Shape { return x.Shape().Clone() }

// Ndim is x's rank.
func Ndim(x Value) int { return len(x.Shape()) }

// Size is the number of values in x.
func Size(x Value) int { return x.Shape().Size() }

// Reshape gives x a new shape of the same size; one dimension may be -1,
// computed from the others.
func Reshape(b Builder, x Value, newShape ...int) Value {
	if missing(b, "Reshape", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := Shape(append([]int(nil), newShape...))
	unknown, known := -1, 1
	for i, d := range s {
		switch {
		case d == -1 && unknown < 0:
			unknown = i
		case d < 0:
			return failf(b, "Reshape", s, "new shape %v: only one dimension may be -1, and none other negative", newShape)
		default:
			known *= d
		}
	}
	size := x.Shape().Size()
	if unknown >= 0 {
		if known == 0 || size%known != 0 {
			return failf(b, "Reshape", s, "cannot reshape an input of shape %v (size %d) into %v", x.Shape(), size, newShape)
		}
		s[unknown] = size / known
	}
	if s.Size() != size {
		return failf(b, "Reshape", s, "cannot reshape an input of shape %v (size %d) into %v (size %d)", x.Shape(), size, newShape, s.Size())
	}
	if s.Equal(x.Shape()) {
		return x
	}
	return b.Reshape(x, s)
}

// Ravel flattens x to one axis.
func Ravel(b Builder, x Value) Value { return Reshape(b, x, -1) }

// Transpose permutes x's axes; no axes reverses them, as NumPy.
func Transpose(b Builder, x Value, axes ...int) Value {
	if missing(b, "Transpose", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	r := len(x.Shape())
	if len(axes) == 0 {
		for i := r - 1; i >= 0; i-- {
			axes = append(axes, i)
		}
	}
	if len(axes) != r {
		return failf(b, "Transpose", x.Shape(), "axes %v do not permute the %d axes of an input of shape %v", axes, r, x.Shape())
	}
	perm, ok := axesOf(b, "Transpose", x, axes)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	identity := true
	for i, p := range perm {
		identity = identity && i == p
	}
	if identity {
		return x
	}
	return b.Transpose(x, perm...)
}

// Swapaxes exchanges two axes.
func Swapaxes(b Builder, x Value, axis1, axis2 int) Value {
	if missing(b, "Swapaxes", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a1, ok1 := axisOf(b, "Swapaxes", x, axis1)
	a2, ok2 := axisOf(b, "Swapaxes", x, axis2)
	if !ok1 || !ok2 {
		return b.Fail(nil, b.Err())
	}
	perm := make([]int, len(x.Shape()))
	for i := range perm {
		perm[i] = i
	}
	perm[a1], perm[a2] = perm[a2], perm[a1]
	return Transpose(b, x, perm...)
}

// Moveaxis moves axis source to position destination, keeping the order
// of the others.
func Moveaxis(b Builder, x Value, source, destination int) Value {
	if missing(b, "Moveaxis", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s, ok1 := axisOf(b, "Moveaxis", x, source)
	d, ok2 := axisOf(b, "Moveaxis", x, destination)
	if !ok1 || !ok2 {
		return b.Fail(nil, b.Err())
	}
	return moveAxis(b, x, s, d)
}

// ExpandDims inserts an axis of size 1 at axis (of the result: -1
// appends).
func ExpandDims(b Builder, x Value, axis int) Value {
	if missing(b, "ExpandDims", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	r := len(x.Shape()) + 1
	if axis < -r || axis >= r {
		return failf(b, "ExpandDims", x.Shape(), "axis %d is out of range for the result of rank %d (input %v)", axis, r, x.Shape())
	}
	if axis < 0 {
		axis += r
	}
	s := append(x.Shape()[:axis:axis], append(Shape{1}, x.Shape()[axis:]...)...)
	return b.Reshape(x, s)
}

// Squeeze removes the given axes, which must have size 1; no axes removes
// every axis of size 1.
func Squeeze(b Builder, x Value, axes ...int) Value {
	if missing(b, "Squeeze", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	in := x.Shape()
	var drop []int
	if len(axes) == 0 {
		for i, d := range in {
			if d == 1 {
				drop = append(drop, i)
			}
		}
	} else {
		var ok bool
		if drop, ok = axesOf(b, "Squeeze", x, axes); !ok {
			return b.Fail(nil, b.Err())
		}
		for _, a := range drop {
			if in[a] != 1 {
				return failf(b, "Squeeze", in, "axis %d of the input %v has size %d, not 1", a, in, in[a])
			}
		}
	}
	if len(drop) == 0 {
		return x
	}
	return b.Reshape(x, dropAxes(in, drop))
}

// BroadcastTo expands x to shape s by NumPy's rules.
func BroadcastTo(b Builder, x Value, s ...int) Value {
	if missing(b, "BroadcastTo", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	out, err := backend.BroadcastShapes(x.Shape(), Shape(s))
	if err != nil || !out.Equal(Shape(s)) {
		return failf(b, "BroadcastTo", Shape(s), "an input of shape %v cannot be broadcast to %v", x.Shape(), s)
	}
	return broadcastTo(b, x, Shape(s).Clone())
}

// Concatenate joins xs along axis.
func Concatenate(b Builder, xs []Value, axis int) Value {
	if len(xs) == 0 {
		return failf(b, "Concatenate", nil, "no tensors to join")
	}
	if missing(b, "Concatenate", names("xs", len(xs)), xs...) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "Concatenate", xs[0], axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if len(xs) == 1 {
		return xs[0]
	}
	return b.Concat(a, xs...)
}

// Append joins y after x along axis, as NumPy's append with an axis.
func Append(b Builder, x, y Value, axis int) Value {
	return Concatenate(b, []Value{x, y}, axis)
}

// Stack joins xs, all of one shape, along a new axis.
func Stack(b Builder, xs []Value, axis int) Value {
	if len(xs) == 0 {
		return failf(b, "Stack", nil, "no tensors to stack")
	}
	if missing(b, "Stack", names("xs", len(xs)), xs...) {
		return b.Fail(nil, b.Err())
	}
	for i, x := range xs {
		if !x.Shape().Equal(xs[0].Shape()) {
			return failf(b, "Stack", xs[0].Shape(), "xs[%d] has shape %v but xs[0] has %v: stacked tensors need one shape", i, x.Shape(), xs[0].Shape())
		}
	}
	ex := make([]Value, len(xs))
	for i, x := range xs {
		ex[i] = ExpandDims(b, x, axis)
	}
	r := len(xs[0].Shape()) + 1
	if axis < 0 {
		axis += r
	}
	return Concatenate(b, ex, axis)
}

// Hstack joins along axis 1 (axis 0 for 1-D tensors).
func Hstack(b Builder, xs []Value) Value {
	if len(xs) > 0 && xs[0] != nil && len(xs[0].Shape()) == 1 {
		return Concatenate(b, xs, 0)
	}
	return Concatenate(b, xs, 1)
}

// Vstack joins along axis 0, 1-D tensors as rows.
func Vstack(b Builder, xs []Value) Value {
	return Concatenate(b, atLeast(b, xs, 2, false), 0)
}

// Dstack joins along axis 2, lifting 1-D and 2-D tensors to 3-D first.
func Dstack(b Builder, xs []Value) Value {
	return Concatenate(b, atLeast(b, xs, 3, true), 2)
}

// atLeast reshapes each x to rank r as NumPy's atleast_2d/3d: (n) to
// (1, n) or (1, n, 1), (m, n) to (m, n, 1).
func atLeast(b Builder, xs []Value, r int, three bool) []Value {
	out := make([]Value, len(xs))
	for i, x := range xs {
		if x == nil {
			out[i] = x
			continue
		}
		s := x.Shape()
		switch {
		case len(s) >= r:
			out[i] = x
		case len(s) == 0:
			t := make(Shape, r)
			for j := range t {
				t[j] = 1
			}
			out[i] = b.Reshape(x, t)
		case len(s) == 1 && three:
			out[i] = b.Reshape(x, Shape{1, s[0], 1})
		case len(s) == 1:
			out[i] = b.Reshape(x, Shape{1, s[0]})
		default: // 2-D to 3-D
			out[i] = b.Reshape(x, Shape{s[0], s[1], 1})
		}
	}
	return out
}

// Unstack splits x along axis into its slices, the axis removed.
func Unstack(b Builder, x Value, axis int) []Value {
	if missing(b, "Unstack", []string{"x"}, x) {
		return failedList(b, 1)
	}
	a, ok := axisOf(b, "Unstack", x, axis)
	if !ok {
		return failedList(b, 1)
	}
	n := x.Shape()[a]
	out := make([]Value, n)
	for i := range out {
		out[i] = b.Reshape(sliceAxis(b, x, a, i, 1), dropAxes(x.Shape(), []int{a}))
	}
	return out
}

// Split cuts x along axis into sections equal parts (the axis must divide
// evenly), as NumPy's split with a number.
func Split(b Builder, x Value, sections, axis int) []Value {
	if missing(b, "Split", []string{"x"}, x) {
		return failedList(b, sections)
	}
	a, ok := axisOf(b, "Split", x, axis)
	if !ok {
		return failedList(b, sections)
	}
	n := x.Shape()[a]
	if sections <= 0 || n%sections != 0 {
		failf(b, "Split", x.Shape(), "axis %d of size %d does not split into %d equal sections: use ArraySplit or SplitAt", a, n, sections)
		return failedList(b, sections)
	}
	return ArraySplit(b, x, sections, axis)
}

// ArraySplit cuts x along axis into sections parts, the first n%sections
// one longer, as NumPy's array_split.
func ArraySplit(b Builder, x Value, sections, axis int) []Value {
	if missing(b, "ArraySplit", []string{"x"}, x) {
		return failedList(b, sections)
	}
	a, ok := axisOf(b, "ArraySplit", x, axis)
	if !ok {
		return failedList(b, sections)
	}
	if sections <= 0 {
		failf(b, "ArraySplit", x.Shape(), "sections must be positive, got %d", sections)
		return failedList(b, sections)
	}
	n := x.Shape()[a]
	var at []int
	pos := 0
	for i := 0; i < sections-1; i++ {
		pos += n / sections
		if i < n%sections {
			pos++
		}
		at = append(at, pos)
	}
	return SplitAt(b, x, at, axis)
}

// SplitAt cuts x along axis before each of the given increasing indices,
// as NumPy's split with a list.
func SplitAt(b Builder, x Value, indices []int, axis int) []Value {
	if missing(b, "SplitAt", []string{"x"}, x) {
		return failedList(b, len(indices)+1)
	}
	a, ok := axisOf(b, "SplitAt", x, axis)
	if !ok {
		return failedList(b, len(indices)+1)
	}
	n := x.Shape()[a]
	bounds := append(append([]int{0}, indices...), n)
	out := make([]Value, 0, len(bounds)-1)
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := min(max(bounds[i], 0), n), min(max(bounds[i+1], 0), n)
		if hi < lo {
			hi = lo
		}
		if hi == lo {
			failf(b, "SplitAt", x.Shape(), "the part [%d, %d) of axis %d is empty, which kerasgo's tensors cannot be", bounds[i], bounds[i+1], a)
			return failedList(b, len(indices)+1)
		}
		out = append(out, sliceAxis(b, x, a, lo, hi-lo))
	}
	return out
}

// Hsplit splits along axis 1 (0 for 1-D tensors).
func Hsplit(b Builder, x Value, sections int) []Value {
	if x != nil && len(x.Shape()) == 1 {
		return Split(b, x, sections, 0)
	}
	return Split(b, x, sections, 1)
}

// Vsplit splits along axis 0.
func Vsplit(b Builder, x Value, sections int) []Value { return Split(b, x, sections, 0) }

// Dsplit splits along axis 2.
func Dsplit(b Builder, x Value, sections int) []Value { return Split(b, x, sections, 2) }

// Tile repeats x reps[i] times along each axis (reps shorter than x's
// rank applies to the last axes; longer adds leading axes).
func Tile(b Builder, x Value, reps ...int) Value {
	if missing(b, "Tile", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	for len(s) < len(reps) {
		s = append(Shape{1}, s...)
	}
	if !s.Equal(x.Shape()) {
		x = b.Reshape(x, s)
	}
	off := len(s) - len(reps)
	for i, r := range reps {
		if r <= 0 {
			return failf(b, "Tile", x.Shape(), "reps %v: each repeat count must be at least 1", reps)
		}
		if r == 1 {
			continue
		}
		parts := make([]Value, r)
		for j := range parts {
			parts[j] = x
		}
		x = b.Concat(off+i, parts...)
	}
	return x
}

// Repeat repeats each value repeats times along the Axis; with none x is
// flattened first, as Keras's axis=None.
func Repeat(b Builder, x Value, repeats int, opts ...AxisOption) Value {
	if missing(b, "Repeat", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if repeats <= 0 {
		return failf(b, "Repeat", x.Shape(), "repeats must be at least 1, got %d", repeats)
	}
	a, flat, ok := oneAxis(b, "Repeat", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if flat {
		x = Ravel(b, x)
	}
	n := x.Shape()[a]
	idx := make([]int, 0, n*repeats)
	for i := 0; i < n; i++ {
		for j := 0; j < repeats; j++ {
			idx = append(idx, i)
		}
	}
	return takeAxis(b, x, a, idx)
}

// Flip reverses x along the given axes (every axis if none).
func Flip(b Builder, x Value, axes ...int) Value {
	if missing(b, "Flip", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	var in []int
	if len(axes) > 0 {
		in = axes
	}
	as, ok := axesOf(b, "Flip", x, in)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	for _, a := range as {
		n := x.Shape()[a]
		if n < 2 {
			continue
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = n - 1 - i
		}
		x = takeAxis(b, x, a, idx)
	}
	return x
}

// Fliplr reverses axis 1.
func Fliplr(b Builder, x Value) Value { return Flip(b, x, 1) }

// Flipud reverses axis 0.
func Flipud(b Builder, x Value) Value { return Flip(b, x, 0) }

// Roll shifts x by shift along the Axis, wrapping around; with none it
// rolls the flattened x and restores its shape.
func Roll(b Builder, x Value, shift int, opts ...AxisOption) Value {
	if missing(b, "Roll", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, flat, ok := oneAxis(b, "Roll", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if flat {
		return b.Reshape(Roll(b, Ravel(b, x), shift, Axis(0)), x.Shape())
	}
	n := x.Shape()[a]
	if n == 0 {
		return x
	}
	k := ((shift % n) + n) % n
	if k == 0 {
		return x
	}
	return b.Concat(a, sliceAxis(b, x, a, n-k, k), sliceAxis(b, x, a, 0, n-k))
}

// Rot90 rotates x by 90° k times in the plane of two axes, from the first
// toward the second, as NumPy's rot90.
func Rot90(b Builder, x Value, k int, axis1, axis2 int) Value {
	if missing(b, "Rot90", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a1, ok1 := axisOf(b, "Rot90", x, axis1)
	a2, ok2 := axisOf(b, "Rot90", x, axis2)
	if !ok1 || !ok2 || a1 == a2 {
		if ok1 && ok2 {
			return failf(b, "Rot90", x.Shape(), "the two axes must differ, got %d and %d", axis1, axis2)
		}
		return b.Fail(nil, b.Err())
	}
	switch ((k % 4) + 4) % 4 {
	case 1:
		return Swapaxes(b, Flip(b, x, a2), a1, a2)
	case 2:
		return Flip(b, x, a1, a2)
	case 3:
		return Flip(b, Swapaxes(b, x, a1, a2), a2)
	}
	return x
}

// PadMode is how Pad fills: Keras's mode argument.
type PadMode string

// The pad modes.
const (
	PadConstant  PadMode = "constant"
	PadReflect   PadMode = "reflect"   // mirror without the edge value
	PadSymmetric PadMode = "symmetric" // mirror with the edge value
)

// Pad adds before[i] and after[i] values around axis i: widths holds one
// [before, after] pair per axis. PadConstant fills with value.
func Pad(b Builder, x Value, widths [][2]int, mode PadMode, value float64) Value {
	if missing(b, "Pad", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if len(widths) != len(x.Shape()) {
		return failf(b, "Pad", x.Shape(), "%d pad widths for an input of rank %d (%v): give one [before, after] per axis", len(widths), len(x.Shape()), x.Shape())
	}
	if mode == "" {
		mode = PadConstant
	}
	for a, w := range widths {
		if w[0] < 0 || w[1] < 0 {
			return failf(b, "Pad", x.Shape(), "pad widths %v for axis %d: widths cannot be negative", w, a)
		}
		if w[0] == 0 && w[1] == 0 {
			continue
		}
		n := x.Shape()[a]
		var idx []int // positions for reflect/symmetric
		switch mode {
		case PadConstant:
			parts := []Value{}
			if w[0] > 0 {
				s := x.Shape().Clone()
				s[a] = w[0]
				parts = append(parts, filled(b, s, value))
			}
			parts = append(parts, x)
			if w[1] > 0 {
				s := x.Shape().Clone()
				s[a] = w[1]
				parts = append(parts, filled(b, s, value))
			}
			x = b.Concat(a, parts...)
			continue
		case PadReflect, PadSymmetric:
			limit := n - 1
			if mode == PadSymmetric {
				limit = n
			}
			if w[0] > limit || w[1] > limit {
				return failf(b, "Pad", x.Shape(), "%s padding of %v along axis %d of size %d: at most %d", mode, w, a, n, limit)
			}
			for i := w[0]; i > 0; i-- {
				if mode == PadReflect {
					idx = append(idx, i)
				} else {
					idx = append(idx, i-1)
				}
			}
			for i := 0; i < n; i++ {
				idx = append(idx, i)
			}
			for i := 1; i <= w[1]; i++ {
				if mode == PadReflect {
					idx = append(idx, n-1-i)
				} else {
					idx = append(idx, n-i)
				}
			}
			x = takeAxis(b, x, a, idx)
		default:
			return failf(b, "Pad", x.Shape(), "unknown pad mode %q: use PadConstant, PadReflect or PadSymmetric", mode)
		}
	}
	return x
}

// failedList is n placeholders (at least one) for an op returning a list
// that failed, so that indexing its result does not panic before b.Err
// is read.
func failedList(b Builder, n int) []Value {
	out := make([]Value, max(n, 1))
	for i := range out {
		out[i] = b.Fail(nil, b.Err())
	}
	return out
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + "[" + itoa(i) + "]"
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// GetItem is x[index] along axis 0 (a negative index counts from the
// end): Keras's x[i] on a tensor.
func GetItem(b Builder, x Value, index int) Value {
	if missing(b, "GetItem", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) == 0 {
		return failf(b, "GetItem", s, "a scalar cannot be indexed")
	}
	if index < -s[0] || index >= s[0] {
		return failf(b, "GetItem", s, "index %d is out of range for axis 0 of size %d", index, s[0])
	}
	if index < 0 {
		index += s[0]
	}
	return b.Reshape(sliceAxis(b, x, 0, index, 1), s[1:].Clone())
}

// DepthToSpace moves blocks of channels into blockSize×blockSize
// spatial blocks: (batch, h, w, c·bs²) to (batch, h·bs, w·bs, c), the
// channels_last layout.
func DepthToSpace(b Builder, x Value, blockSize int) Value {
	if missing(b, "DepthToSpace", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	bs := blockSize
	if len(s) != 4 || bs < 1 || s[3]%(bs*bs) != 0 {
		return failf(b, "DepthToSpace", s, "the input %v must be (batch, height, width, channels) with channels divisible by block_size² = %d", s, bs*bs)
	}
	n, h, w, c := s[0], s[1], s[2], s[3]/(bs*bs)
	y := b.Reshape(x, Shape{n, h, w, bs, bs, c})
	y = b.Transpose(y, 0, 1, 3, 2, 4, 5)
	return b.Reshape(y, Shape{n, h * bs, w * bs, c})
}

// SpaceToDepth is the inverse of DepthToSpace.
func SpaceToDepth(b Builder, x Value, blockSize int) Value {
	if missing(b, "SpaceToDepth", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	bs := blockSize
	if len(s) != 4 || bs < 1 || s[1]%bs != 0 || s[2]%bs != 0 {
		return failf(b, "SpaceToDepth", s, "the input %v must be (batch, height, width, channels) with height and width divisible by block_size %d", s, bs)
	}
	n, h, w, c := s[0], s[1]/bs, s[2]/bs, s[3]
	y := b.Reshape(x, Shape{n, h, bs, w, bs, c})
	y = b.Transpose(y, 0, 1, 3, 2, 4, 5)
	return b.Reshape(y, Shape{n, h, w, bs * bs * c})
}

// ExtractSequences cuts the last axis of x into frames of length
// sequenceLength every sequenceStride values: (..., n) to (..., frames,
// sequenceLength).
func ExtractSequences(b Builder, x Value, sequenceLength, sequenceStride int) Value {
	if missing(b, "ExtractSequences", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) == 0 || sequenceLength <= 0 || sequenceStride <= 0 || sequenceLength > s[len(s)-1] {
		return failf(b, "ExtractSequences", s, "frames of %d every %d values from an input %v: both must be positive and the frame no longer than the last axis", sequenceLength, sequenceStride, s)
	}
	last := len(s) - 1
	n := s[last]
	frames := (n-sequenceLength)/sequenceStride + 1
	idx := make([]int, 0, frames*sequenceLength)
	for f := 0; f < frames; f++ {
		for j := 0; j < sequenceLength; j++ {
			idx = append(idx, f*sequenceStride+j)
		}
	}
	y := takeAxis(b, x, last, idx)
	return b.Reshape(y, append(s[:last].Clone(), frames, sequenceLength))
}
