package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// The random transform layers (RandomRotation, RandomTranslation,
// RandomZoom) map images through ops.AffineTransform (Keras's
// ops.image.affine_transform), one transform per image drawn in the
// step: output pixel (y, x) of image n reads the input at (b1*y + b0*x +
// b2, a1*y + a0*x + a2) with that image's coefficients.

// affineMap holds one affine map per image, each coefficient of shape
// (batch, 1, 1).
type affineMap struct {
	a0, a1, a2, b0, b1, b2 backend.Value
}

// checkTransformModes reports an interpolation or fill mode Keras's
// random transforms do not take (ops.AffineTransform's, less "mirror",
// which Keras's layers refuse).
func checkTransformModes(interpolation, fillMode string) error {
	if fillMode == "mirror" {
		return fmt.Errorf("unknown fill mode %q: use reflect, wrap, constant or nearest", fillMode)
	}
	return ops.CheckAffineTransformModes(interpolation, fillMode)
}

// affineTransform samples images x (batch, height, width, channels)
// through m.
func affineTransform(b backend.Builder, x backend.Value, m affineMap, interpolation, fillMode string, fillValue float64) backend.Value {
	n := x.Shape()[0]
	zero := b.Constant(make([]float64, n), backend.Shape{n, 1})
	coef := func(v backend.Value) backend.Value { return b.Reshape(v, backend.Shape{n, 1}) }
	transform := b.Concat(1, coef(m.a0), coef(m.a1), coef(m.a2), coef(m.b0), coef(m.b1), coef(m.b2), zero, zero)
	return ops.AffineTransform(b, x, transform, ops.AffineTransformOptions{Interpolation: interpolation, FillMode: fillMode, FillValue: fillValue})
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
