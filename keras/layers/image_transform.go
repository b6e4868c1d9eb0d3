package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Affine image transforms as Keras's JAX backend computes them
// (ops.image.affine_transform, which samples with
// jax.scipy.ndimage.map_coordinates): output pixel (y, x) of image n
// takes the input at (b1*y + b0*x + b2, a1*y + a0*x + a2), with that
// image's coefficients, interpolated ("bilinear" from the 4 neighbours,
// or "nearest") and, outside the image, filled by fill mode: "constant"
// (fillValue), "nearest" (the edge), "wrap" (the image repeats) or
// "reflect" (mirrored about the edge: d c b a | a b c d | d c b a).
// Everything is engine ops: gradients flow to the images.

// affineMap holds one affine map per image, each coefficient of shape
// (batch, 1, 1).
type affineMap struct {
	a0, a1, a2, b0, b1, b2 backend.Value
}

// checkTransformModes reports an interpolation or fill mode Keras's
// random transforms do not take.
func checkTransformModes(interpolation, fillMode string) error {
	switch interpolation {
	case "bilinear", "nearest":
	default:
		return fmt.Errorf("unknown interpolation %q: use bilinear or nearest", interpolation)
	}
	switch fillMode {
	case "reflect", "wrap", "constant", "nearest":
	default:
		return fmt.Errorf("unknown fill mode %q: use reflect, wrap, constant or nearest", fillMode)
	}
	return nil
}

// affineTransform samples images x (batch, height, width, channels)
// through m.
func affineTransform(b backend.Builder, x backend.Value, m affineMap, interpolation, fillMode string, fillValue float64) backend.Value {
	s := x.Shape()
	n, h, w, c := s[0], s[1], s[2], s[3]
	rows, cols, starts := make([]float64, h*w), make([]float64, h*w), make([]float64, n)
	for i := range rows {
		rows[i], cols[i] = float64(i/w), float64(i%w)
	}
	for i := range starts {
		starts[i] = float64(i * h * w)
	}
	grid := backend.Shape{1, h, w}
	Y, X := b.Constant(rows, grid), b.Constant(cols, grid)
	yIn := b.Add(b.Add(b.Mul(m.b1, Y), b.Mul(m.b0, X)), m.b2)
	xIn := b.Add(b.Add(b.Mul(m.a1, Y), b.Mul(m.a0, X)), m.a2)
	table := b.Reshape(x, backend.Shape{n * h * w, c})
	first := b.Constant(starts, backend.Shape{n, 1, 1})
	var out backend.Value
	for _, yn := range neighbours(b, yIn, interpolation) {
		for _, xn := range neighbours(b, xIn, interpolation) {
			yi, validY := fixIndex(b, yn.index, h, fillMode)
			xi, validX := fixIndex(b, xn.index, w, fillMode)
			flat := b.Add(b.Add(first, b.Mul(yi, b.Scalar(float64(w)))), xi)
			values := b.Gather(table, flat) // (batch, height, width, channels)
			weight := b.Mul(yn.weight, xn.weight)
			if validY != nil {
				valid := b.Reshape(b.Mul(validY, validX), backend.Shape{n, h, w, 1})
				values = b.Add(b.Mul(valid, values), b.Mul(b.Sub(b.Scalar(1), valid), b.Scalar(fillValue)))
			}
			term := values
			if len(weight.Shape()) > 0 { // nearest has weight 1
				term = b.Mul(b.Reshape(weight, backend.Shape{n, h, w, 1}), values)
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
	index, weight backend.Value
}

// neighbours are the indices a coordinate reads and their weights:
// floor(v) and floor(v)+1 weighted by distance (bilinear), or v rounded
// half away from zero with weight 1 (nearest), as JAX's map_coordinates.
func neighbours(b backend.Builder, v backend.Value, interpolation string) []neighbour {
	one := b.Scalar(1)
	if interpolation == "nearest" {
		// round(v) = floor(v + 1/2) for v >= 0, -floor(1/2 - v) below.
		positive := b.Greater(v, b.Scalar(0))
		up := b.Floor(b.Add(v, b.Scalar(0.5)))
		down := b.Neg(b.Floor(b.Sub(b.Scalar(0.5), v)))
		return []neighbour{{b.Add(b.Mul(positive, up), b.Mul(b.Sub(one, positive), down)), one}}
	}
	lower := b.Floor(v)
	upper := b.Sub(v, lower)
	return []neighbour{{lower, b.Sub(one, upper)}, {b.Add(lower, one), upper}}
}

// fixIndex maps an index along an axis of length size into the image
// by the fill mode. For "constant" it also returns 1 where the index was
// inside the image and 0 where the fill value goes (nil otherwise).
func fixIndex(b backend.Builder, i backend.Value, size int, fillMode string) (fixed, valid backend.Value) {
	last := float64(size - 1)
	clamp := func(v backend.Value) backend.Value {
		return b.Minimum(b.Maximum(v, b.Scalar(0)), b.Scalar(last))
	}
	switch fillMode {
	case "constant":
		inside := b.Mul(b.Greater(i, b.Scalar(-0.5)), b.Greater(b.Scalar(last+0.5), i))
		return clamp(i), inside
	case "nearest":
		return clamp(i), nil
	case "wrap":
		return mod(b, i, float64(size)), nil
	}
	// reflect: JAX's (mirror(2i + 1, 2 size + 1) - 1) // 2, where
	// mirror(j, n) = |(j + n - 1) mod 2(n - 1) - (n - 1)|.
	half := 2 * float64(size)
	j := b.Add(b.Mul(i, b.Scalar(2)), b.Scalar(1))
	d := b.Sub(mod(b, b.Add(j, b.Scalar(half)), 2*half), b.Scalar(half))
	mirrored := b.Maximum(d, b.Neg(d))
	// The result is exact: floor((m - 1) / 2) of a whole number m.
	return clamp(b.Floor(b.Mul(b.Sub(mirrored, b.Scalar(1)), b.Scalar(0.5)))), nil
}

// mod is a - m*floor(a/m), Python's %: in [0, m) for whole numbers a.
func mod(b backend.Builder, a backend.Value, m float64) backend.Value {
	r := b.Sub(a, b.Mul(b.Floor(b.Mul(a, b.Scalar(1/m))), b.Scalar(m)))
	// a/m is inexact for m not a power of two; a whole-number quotient
	// could round below, leaving r = m: fold that back to 0.
	return b.Sub(r, b.Mul(b.Greater(r, b.Scalar(m-0.5)), b.Scalar(m)))
}

// transformSettings are the random transform layers' shared settings,
// with Keras's defaults for zero values.
type transformSettings struct {
	fillMode, interpolation string
}

func settingsOf(fillMode, interpolation string) transformSettings {
	if fillMode == "" {
		fillMode = "reflect"
	}
	if interpolation == "" {
		interpolation = "bilinear"
	}
	return transformSettings{fillMode, interpolation}
}

// coefficient returns a (batch, 1, 1) coefficient holding v.
func coefficient(b backend.Builder, n int, v float64) backend.Value {
	return b.Constant(filledWith(v, n), backend.Shape{n, 1, 1})
}

// uniformPerImage draws one value per image in [lo, hi), shaped (batch,
// 1, 1) like an affineMap's coefficients.
func uniformPerImage(b backend.Builder, n int, lo, hi float64) backend.Value {
	u := b.RandomUniform(backend.Shape{n, 1, 1})
	return b.Add(b.Mul(u, b.Scalar(hi-lo)), b.Scalar(lo))
}

// rotation is Keras's _compute_affine_matrix for angles theta (radians)
// about the image's centre.
func rotation(b backend.Builder, theta backend.Value, h, w int) affineMap {
	cos, sin := b.Cos(theta), b.Sin(theta)
	cx, cy := 0.5*float64(w-1), 0.5*float64(h-1)
	m := affineMap{a0: cos, a1: b.Neg(sin), b0: sin, b1: cos}
	// a2 = cx - cx*a0 - cy*a1; b2 = cy - cx*b0 - cy*b1.
	m.a2 = b.Sub(b.Sub(b.Scalar(cx), b.Mul(b.Scalar(cx), m.a0)), b.Mul(b.Scalar(cy), m.a1))
	m.b2 = b.Sub(b.Sub(b.Scalar(cy), b.Mul(b.Scalar(cx), m.b0)), b.Mul(b.Scalar(cy), m.b1))
	return m
}

// fullTurn is a rotation factor of 1, in radians: Keras's factors are
// fractions of 360 degrees.
const fullTurn = 2 * math.Pi
