package ops

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Add is x + y, broadcasting.
func Add(b Builder, x, y Value) Value { return b.Add(x, y) }

// Subtract is x - y, broadcasting.
func Subtract(b Builder, x, y Value) Value { return b.Sub(x, y) }

// Multiply is x · y, elementwise, broadcasting.
func Multiply(b Builder, x, y Value) Value { return b.Mul(x, y) }

// Divide is x / y, broadcasting.
func Divide(b Builder, x, y Value) Value { return b.Div(x, y) }

// TrueDivide is Divide.
func TrueDivide(b Builder, x, y Value) Value { return b.Div(x, y) }

// DivideNoNan is x / y, and 0 where y is 0.
func DivideNoNan(b Builder, x, y Value) Value {
	s, bad := broadcastShape(b, "DivideNoNan", x, y)
	if bad != nil {
		return bad
	}
	zero := b.Equal(broadcastTo(b, y, s), filled(b, s, 0))
	safe := b.Where(zero, scalar(b, 1), y)
	return b.Where(zero, scalar(b, 0), b.Div(x, safe))
}

// FloorDivide is floor(x / y).
func FloorDivide(b Builder, x, y Value) Value { return b.Floor(b.Div(x, y)) }

// Mod is x - floor(x/y)·y: the remainder with y's sign, as Python's %.
func Mod(b Builder, x, y Value) Value {
	return b.Sub(x, b.Mul(b.StopGradient(b.Floor(b.Div(x, y))), y))
}

// Fmod is x - trunc(x/y)·y: the remainder with x's sign, as C's fmod.
func Fmod(b Builder, x, y Value) Value {
	return b.Sub(x, b.Mul(b.StopGradient(Trunc(b, b.Div(x, y))), y))
}

// Power is x raised to y, broadcasting. A negative x takes a whole y
// (its result is NaN otherwise, as in NumPy); 0⁰ is 1.
func Power(b Builder, x, y Value) Value {
	s, bad := broadcastShape(b, "Power", x, y)
	if bad != nil {
		return bad
	}
	a := b.Abs(x)
	zero := b.Equal(broadcastTo(b, a, s), filled(b, s, 0))
	mag := b.Exp(b.Mul(y, b.Log(b.Where(zero, scalar(b, 1), a))))
	// 0^y: 1 for y = 0, 0 for y > 0, +Inf for y < 0
	atZero := b.Where(b.Greater(y, scalar(b, 0)), scalar(b, 0), b.Where(b.Greater(scalar(b, 0), y), scalar(b, math.Inf(1)), scalar(b, 1)))
	mag = b.Where(zero, atZero, mag)
	negative := b.Greater(scalar(b, 0), x)
	whole := b.Equal(broadcastTo(b, y, s), broadcastTo(b, b.Floor(y), s))
	odd := b.Sub(b.Mul(y, scalar(b, 0.5)), b.Floor(b.Mul(y, scalar(b, 0.5))))
	sign := b.Where(b.Greater(odd, scalar(b, 0)), scalar(b, -1), scalar(b, 1))
	neg := b.Where(whole, b.Mul(mag, sign), scalar(b, math.NaN()))
	return b.Where(negative, neg, mag)
}

// Maximum is the larger of x and y, elementwise, broadcasting.
func Maximum(b Builder, x, y Value) Value { return b.Maximum(x, y) }

// Minimum is the smaller of x and y, elementwise, broadcasting.
func Minimum(b Builder, x, y Value) Value { return b.Minimum(x, y) }

// Fmax is Maximum that ignores a NaN when the other value is not NaN.
func Fmax(b Builder, x, y Value) Value {
	return b.Where(Isnan(b, x), y, b.Where(Isnan(b, y), x, b.Maximum(x, y)))
}

// Fmin is Minimum that ignores a NaN when the other value is not NaN.
func Fmin(b Builder, x, y Value) Value {
	return b.Where(Isnan(b, x), y, b.Where(Isnan(b, y), x, b.Minimum(x, y)))
}

// Arctan2 is the angle of the point (x2, x1) in radians, in [-π, π],
// as NumPy's arctan2(x1, x2).
func Arctan2(b Builder, x1, x2 Value) Value {
	zero := scalar(b, 0)
	x2zero := b.Equal(x2, zerosLike(b, x2))
	base := b.Atan(b.Div(x1, b.Where(x2zero, scalar(b, 1), x2)))
	// x2 < 0: add ±π by x1's sign (x1 = 0 counts as positive)
	up := b.Where(b.Greater(zero, x1), scalar(b, -math.Pi), scalar(b, math.Pi))
	left := b.Add(base, up)
	// x2 = 0: ±π/2 by x1's sign, 0 when x1 is 0 too
	vertical := b.Mul(Sign(b, x1), scalar(b, math.Pi/2))
	return b.Where(x2zero, vertical, b.Where(b.Greater(zero, x2), left, base))
}

// Hypot is √(x²+y²).
func Hypot(b Builder, x, y Value) Value { return b.Sqrt(b.Add(b.Square(x), b.Square(y))) }

// Logaddexp is log(eˣ+eʸ), computed without overflow.
func Logaddexp(b Builder, x, y Value) Value {
	m := b.Maximum(x, y)
	return b.Add(m, b.Log1p(b.Exp(b.Neg(b.Abs(b.Sub(x, y))))))
}

// Logaddexp2 is log₂(2ˣ+2ʸ), computed without overflow.
func Logaddexp2(b Builder, x, y Value) Value {
	m := b.Maximum(x, y)
	d := b.Mul(b.Neg(b.Abs(b.Sub(x, y))), scalar(b, math.Ln2))
	return b.Add(m, b.Div(b.Log1p(b.Exp(d)), scalar(b, math.Ln2)))
}

// Ldexp is x·2ʸ.
func Ldexp(b Builder, x, y Value) Value { return b.Mul(x, Exp2(b, y)) }

// Heaviside is 0 for x < 0, h0 for x = 0 and 1 for x > 0.
func Heaviside(b Builder, x, h0 Value) Value {
	zero := scalar(b, 0)
	atZero := b.Mul(b.Sub(scalar(b, 1), b.Add(b.Greater(x, zero), b.Greater(zero, x))), h0)
	return b.Add(b.Greater(x, zero), atZero)
}

// broadcastShape is the shape x and y broadcast to; when they do not, or
// one is nil, bad is a placeholder with the error recorded.
func broadcastShape(b Builder, op string, x, y Value) (s Shape, bad Value) {
	if missing(b, op, []string{"x1", "x2"}, x, y) {
		return nil, b.Fail(nil, b.Err())
	}
	s, err := backend.BroadcastShapes(x.Shape(), y.Shape())
	if err != nil {
		return nil, failf(b, op, x.Shape(), "x1 of shape %v and x2 of shape %v do not broadcast together", x.Shape(), y.Shape())
	}
	return s, nil
}
