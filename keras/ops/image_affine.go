package ops

import (
	"fmt"
)

// AffineTransformOptions are image.affine_transform's options; the zero
// value is Keras's default: bilinear, constant fill with 0.
type AffineTransformOptions struct {
	// Interpolation is "bilinear" (when empty) or "nearest".
	Interpolation string
	// FillMode says what a point outside the image reads: "constant"
	// (when empty: FillValue), "nearest" (the edge), "wrap" (the image
	// repeats), "mirror" (reflected about the edge pixel: d c b | a b c
	// d | c b a) or "reflect" (reflected about the edge: d c b a | a b c
	// d | d c b a).
	FillMode  string
	FillValue float64
}

// CheckAffineTransformModes reports an interpolation or fill mode
// AffineTransform does not take, naming the ones it does.
func CheckAffineTransformModes(interpolation, fillMode string) error {
	switch interpolation {
	case "", "bilinear", "nearest":
	default:
		return fmt.Errorf("unknown interpolation %q: use bilinear or nearest", interpolation)
	}
	switch fillMode {
	case "", "constant", "nearest", "wrap", "mirror", "reflect":
	default:
		return fmt.Errorf("unknown fill mode %q: use constant, nearest, wrap, mirror or reflect", fillMode)
	}
	return nil
}

// AffineTransform maps images (batch, height, width, channels), or one
// image (height, width, channels), through transform (8,) or (batch, 8),
// Keras's ops.image.affine_transform: output pixel (x, y) of an image
// reads the input at ((a0·x + a1·y + a2)/k, (b0·x + b1·y + b2)/k), k =
// c0·x + c1·y + 1, for its transform [a0, a1, a2, b0, b1, b2, c0, c1],
// interpolated and filled as o says. It samples as Keras's JAX backend
// does (jax.scipy.ndimage.map_coordinates), and is differentiable in the
// images and the transform (except with "nearest" interpolation, which
// reads whole pixels).
//
// Keras's JAX backend mishandles the projective terms c0 and c1 (it adds
// them times the channel index); kerasgo divides by k as the formula
// above, Keras's documentation and its TensorFlow backend do. Only
// channels_last images are taken.
func AffineTransform(b Builder, images, transform Value, o AffineTransformOptions) Value {
	const op = "AffineTransform"
	if missing(b, op, []string{"images", "transform"}, images, transform) {
		return b.Fail(nil, b.Err())
	}
	x, back, ok := batchOf(b, op, images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if err := CheckAffineTransformModes(o.Interpolation, o.FillMode); err != nil {
		return failf(b, op, images.Shape(), "%v", err)
	}
	s := x.Shape()
	n, h, w := s[0], s[1], s[2]
	ts := transform.Shape()
	switch {
	case len(ts) == 1 && ts[0] == 8:
		transform = b.Reshape(transform, Shape{1, 8})
	case len(ts) == 2 && ts[1] == 8 && (ts[0] == n || ts[0] == 1):
	default:
		return failf(b, op, ts, "transform %v must be (8,) or (batch, 8) with the images' batch %d", ts, n)
	}
	if transform.DType() != b.DType() {
		transform = b.Cast(transform)
	}
	coef := func(i int) Value { // (batch or 1, 1, 1)
		return b.Reshape(sliceAxis(b, transform, 1, i, 1), Shape{transform.Shape()[0], 1, 1})
	}
	rows, cols := make([]float64, h*w), make([]float64, h*w)
	for i := range rows {
		rows[i], cols[i] = float64(i/w), float64(i%w)
	}
	grid := Shape{1, h, w}
	Y, X := b.Constant(rows, grid), b.Constant(cols, grid)
	k := b.Add(b.Add(b.Mul(coef(6), X), b.Mul(coef(7), Y)), scalar(b, 1))
	xIn := b.Div(b.Add(b.Add(b.Mul(coef(0), X), b.Mul(coef(1), Y)), coef(2)), k)
	yIn := b.Div(b.Add(b.Add(b.Mul(coef(3), X), b.Mul(coef(4), Y)), coef(5)), k)
	if transform.Shape()[0] == 1 && n > 1 {
		xIn, yIn = BroadcastTo(b, xIn, n, h, w), BroadcastTo(b, yIn, n, h, w)
	}
	return back(sampleImages(b, x, yIn, xIn, o))
}

// sampleImages reads images x (batch, h, w, c) at the coordinates yIn,
// xIn (batch, h, w), as map_coordinates does.
func sampleImages(b Builder, x, yIn, xIn Value, o AffineTransformOptions) Value {
	s := x.Shape()
	n, h, w, c := s[0], s[1], s[2], s[3]
	starts := make([]float64, n)
	for i := range starts {
		starts[i] = float64(i * h * w)
	}
	table := b.Reshape(x, Shape{n * h * w, c})
	first := b.Constant(starts, Shape{n, 1, 1})
	fill := o.FillMode
	if fill == "" {
		fill = "constant"
	}
	var out Value
	for _, yn := range sampleNeighbours(b, yIn, o.Interpolation) {
		for _, xn := range sampleNeighbours(b, xIn, o.Interpolation) {
			yi, validY := fixIndex(b, yn.index, h, fill)
			xi, validX := fixIndex(b, xn.index, w, fill)
			flat := b.Add(b.Add(first, b.Mul(yi, scalar(b, float64(w)))), xi)
			values := b.Gather(table, b.StopGradient(flat)) // (batch, h, w, c)
			if validY != nil {
				valid := b.Reshape(b.Mul(validY, validX), Shape{n, h, w, 1})
				values = b.Add(b.Mul(valid, values), b.Mul(b.Sub(scalar(b, 1), valid), scalar(b, o.FillValue)))
			}
			term := values
			if weight := b.Mul(yn.weight, xn.weight); len(weight.Shape()) > 0 { // nearest has weight 1
				term = b.Mul(b.Reshape(weight, Shape{n, h, w, 1}), values)
			}
			if out == nil {
				out = term
			} else {
				out = b.Add(out, term)
			}
		}
	}
	return out
}

// neighbour is a sampled index along one axis and its weight.
type neighbour struct {
	index, weight Value
}

// sampleNeighbours are the indices a coordinate reads and their weights:
// floor(v) and floor(v)+1 weighted by distance (bilinear), or v rounded
// half away from zero with weight 1 (nearest), as JAX's map_coordinates.
func sampleNeighbours(b Builder, v Value, interpolation string) []neighbour {
	one := scalar(b, 1)
	if interpolation == "nearest" {
		// round(v) = floor(v + 1/2) for v >= 0, -floor(1/2 - v) below.
		positive := b.Greater(v, scalar(b, 0))
		up := b.Floor(b.Add(v, scalar(b, 0.5)))
		down := b.Neg(b.Floor(b.Sub(scalar(b, 0.5), v)))
		return []neighbour{{b.StopGradient(b.Add(b.Mul(positive, up), b.Mul(b.Sub(one, positive), down))), one}}
	}
	lower := b.StopGradient(b.Floor(v))
	upper := b.Sub(v, lower)
	return []neighbour{{lower, b.Sub(one, upper)}, {b.Add(lower, one), upper}}
}

// fixIndex maps an index along an axis of length size into the image
// by the fill mode, as map_coordinates' index fixers. For "constant" it
// also returns 1 where the index was inside the image and 0 where the
// fill value goes (nil otherwise).
func fixIndex(b Builder, i Value, size int, fillMode string) (fixed, valid Value) {
	last := float64(size - 1)
	clamp := func(v Value) Value {
		return b.Minimum(b.Maximum(v, scalar(b, 0)), scalar(b, last))
	}
	// mirror is |(j + n - 1) mod 2(n - 1) - (n - 1)|: j reflected about
	// 0 and n - 1.
	mirror := func(j Value, n float64) Value {
		if n <= 1 {
			return filled(b, j.Shape(), 0)
		}
		d := b.Sub(wholeMod(b, b.Add(j, scalar(b, n-1)), 2*(n-1)), scalar(b, n-1))
		return b.Maximum(d, b.Neg(d))
	}
	switch fillMode {
	case "constant":
		inside := b.Mul(b.Greater(i, scalar(b, -0.5)), b.Greater(scalar(b, last+0.5), i))
		return clamp(i), inside
	case "nearest":
		return clamp(i), nil
	case "wrap":
		return wholeMod(b, i, float64(size)), nil
	case "mirror":
		return clamp(mirror(i, float64(size))), nil
	}
	// reflect: (mirror(2i + 1, 2 size + 1) - 1) // 2, exact for the
	// whole number mirror gives.
	j := b.Add(b.Mul(i, scalar(b, 2)), scalar(b, 1))
	return clamp(b.Floor(b.Mul(b.Sub(mirror(j, 2*float64(size)+1), scalar(b, 1)), scalar(b, 0.5)))), nil
}

// wholeMod is a - m·floor(a/m), Python's %, for whole numbers a: in [0,
// m).
func wholeMod(b Builder, a Value, m float64) Value {
	r := b.Sub(a, b.Mul(b.Floor(b.Mul(a, scalar(b, 1/m))), scalar(b, m)))
	// a/m is inexact for m not a power of two; a whole-number quotient
	// could round below, leaving r = m: fold that back to 0.
	return b.Sub(r, b.Mul(b.Greater(r, scalar(b, m-0.5)), scalar(b, m)))
}

// MapCoordinates reads inputs (any rank r) at coordinates (r, ...): the
// value at each point (coordinates[0][...], ..., coordinates[r-1][...]),
// Keras's ops.image.map_coordinates. order 0 takes the nearest element
// (halves away from zero), order 1 interpolates linearly between the 2^r
// around; fillMode and fillValue say what a point outside reads, as
// AffineTransformOptions's. It samples as jax.scipy.ndimage.map_coordinates
// (Keras's JAX backend), differentiable in inputs and, with order 1, in
// coordinates.
func MapCoordinates(b Builder, inputs, coordinates Value, order int, fillMode string, fillValue float64) Value {
	const op = "MapCoordinates"
	if missing(b, op, []string{"inputs", "coordinates"}, inputs, coordinates) {
		return b.Fail(nil, b.Err())
	}
	s, cs := inputs.Shape(), coordinates.Shape()
	r := len(s)
	if r == 0 || len(cs) < 1 || cs[0] != r {
		return failf(b, op, cs, "coordinates %v must be (%d, ...): one coordinate array per axis of inputs %v", cs, r, s)
	}
	interpolation := map[int]string{0: "nearest", 1: "bilinear"}[order]
	if interpolation == "" {
		return failf(b, op, s, "order %d: use 0 (nearest) or 1 (linear), as Keras", order)
	}
	if err := CheckAffineTransformModes("", fillMode); err != nil {
		return failf(b, op, s, "%v", err)
	}
	if fillMode == "" {
		fillMode = "constant"
	}
	out := cs[1:].Clone()
	if coordinates.DType() != b.DType() {
		coordinates = b.Cast(coordinates)
	}
	strides := make([]int, r)
	size := 1
	for d := r - 1; d >= 0; d-- {
		strides[d], size = size, size*s[d]
	}
	table := b.Reshape(inputs, Shape{size, 1})
	type axisPoint struct{ index, weight, valid Value }
	perAxis := make([][]axisPoint, r)
	for d := range r {
		c := b.Reshape(sliceAxis(b, coordinates, 0, d, 1), out)
		for _, n := range sampleNeighbours(b, c, interpolation) {
			fixed, valid := fixIndex(b, n.index, s[d], fillMode)
			perAxis[d] = append(perAxis[d], axisPoint{fixed, n.weight, valid})
		}
	}
	var total Value
	var walk func(d int, flat, weight, valid Value)
	walk = func(d int, flat, weight, valid Value) {
		if d == r {
			v := b.Reshape(b.Gather(table, b.StopGradient(flat)), out)
			if valid != nil {
				v = b.Add(b.Mul(valid, v), b.Mul(b.Sub(scalar(b, 1), valid), scalar(b, fillValue)))
			}
			if weight != nil {
				v = b.Mul(weight, v)
			}
			if total == nil {
				total = v
			} else {
				total = b.Add(total, v)
			}
			return
		}
		for _, p := range perAxis[d] {
			f := b.Mul(p.index, scalar(b, float64(strides[d])))
			if flat != nil {
				f = b.Add(flat, f)
			}
			w, ok := weight, valid
			if len(p.weight.Shape()) > 0 { // nearest's weight is the scalar 1
				if w == nil {
					w = p.weight
				} else {
					w = b.Mul(w, p.weight)
				}
			}
			if p.valid != nil {
				if ok == nil {
					ok = p.valid
				} else {
					ok = b.Mul(ok, p.valid)
				}
			}
			walk(d+1, f, w, ok)
		}
	}
	walk(0, nil, nil, nil)
	return total
}
