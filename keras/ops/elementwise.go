package ops

import "math"

// Abs is |x| (Keras's abs; Absolute and Fabs are the same op).
func Abs(b Builder, x Value) Value { return b.Abs(x) }

// Absolute is Abs.
func Absolute(b Builder, x Value) Value { return b.Abs(x) }

// Fabs is Abs.
func Fabs(b Builder, x Value) Value { return b.Abs(x) }

// Negative is -x.
func Negative(b Builder, x Value) Value { return b.Neg(x) }

// Sign is -1, 0 or 1 by the sign of x (not differentiable).
func Sign(b Builder, x Value) Value {
	z := scalar(b, 0)
	return b.Sub(b.Greater(x, z), b.Greater(z, x))
}

// Square is x².
func Square(b Builder, x Value) Value { return b.Square(x) }

// Sqrt is √x.
func Sqrt(b Builder, x Value) Value { return b.Sqrt(x) }

// Rsqrt is 1/√x.
func Rsqrt(b Builder, x Value) Value { return b.Div(scalar(b, 1), b.Sqrt(x)) }

// Cbrt is the real cube root, negative for negative x.
func Cbrt(b Builder, x Value) Value {
	a := b.Abs(x)
	root := b.Where(a, b.Exp(b.Div(b.Log(b.Where(a, a, scalar(b, 1))), scalar(b, 3))), scalar(b, 0))
	return b.Mul(Sign(b, x), root)
}

// Exp is eˣ.
func Exp(b Builder, x Value) Value { return b.Exp(x) }

// Exp2 is 2ˣ.
func Exp2(b Builder, x Value) Value { return b.Exp(b.Mul(x, scalar(b, math.Ln2))) }

// Expm1 is eˣ-1, accurate near 0.
func Expm1(b Builder, x Value) Value { return b.Expm1(x) }

// Log is the natural logarithm.
func Log(b Builder, x Value) Value { return b.Log(x) }

// Log2 is the base-2 logarithm.
func Log2(b Builder, x Value) Value { return b.Div(b.Log(x), scalar(b, math.Ln2)) }

// Log10 is the base-10 logarithm.
func Log10(b Builder, x Value) Value { return b.Div(b.Log(x), scalar(b, math.Ln10)) }

// Log1p is log(1+x), accurate near 0.
func Log1p(b Builder, x Value) Value { return b.Log1p(x) }

// Sin, Cos and Tan are the trigonometric functions, in radians.
func Sin(b Builder, x Value) Value { return b.Sin(x) }

// Cos is the cosine.
func Cos(b Builder, x Value) Value { return b.Cos(x) }

// Tan is the tangent.
func Tan(b Builder, x Value) Value { return b.Div(b.Sin(x), b.Cos(x)) }

// Arctan is the inverse tangent.
func Arctan(b Builder, x Value) Value { return b.Atan(x) }

// Arcsin is the inverse sine, on [-1, 1]: atan(x/√(1-x²)).
func Arcsin(b Builder, x Value) Value {
	return b.Atan(b.Div(x, b.Sqrt(b.Sub(scalar(b, 1), b.Square(x)))))
}

// Arccos is the inverse cosine, on [-1, 1]: π/2 - arcsin(x).
func Arccos(b Builder, x Value) Value { return b.Sub(scalar(b, math.Pi/2), Arcsin(b, x)) }

// Sinh is the hyperbolic sine.
func Sinh(b Builder, x Value) Value {
	return b.Mul(b.Sub(b.Exp(x), b.Exp(b.Neg(x))), scalar(b, 0.5))
}

// Cosh is the hyperbolic cosine.
func Cosh(b Builder, x Value) Value {
	return b.Mul(b.Add(b.Exp(x), b.Exp(b.Neg(x))), scalar(b, 0.5))
}

// Tanh is the hyperbolic tangent.
func Tanh(b Builder, x Value) Value { return b.Tanh(x) }

// Arcsinh is the inverse hyperbolic sine, log(x+√(x²+1)), odd in x.
func Arcsinh(b Builder, x Value) Value {
	a := b.Abs(x)
	pos := b.Log1p(b.Add(a, b.Div(b.Square(a), b.Add(scalar(b, 1), b.Sqrt(b.Add(b.Square(a), scalar(b, 1)))))))
	return b.Where(b.Greater(scalar(b, 0), x), b.Neg(pos), pos)
}

// Arccosh is the inverse hyperbolic cosine, log(x+√(x²-1)), for x ≥ 1.
func Arccosh(b Builder, x Value) Value {
	return b.Log(b.Add(x, b.Sqrt(b.Sub(b.Square(x), scalar(b, 1)))))
}

// Arctanh is the inverse hyperbolic tangent, ½·log((1+x)/(1-x)).
func Arctanh(b Builder, x Value) Value {
	return b.Mul(b.Sub(b.Log1p(x), b.Log1p(b.Neg(x))), scalar(b, 0.5))
}

// Floor rounds down (not differentiable).
func Floor(b Builder, x Value) Value { return b.Floor(x) }

// Ceil rounds up (not differentiable).
func Ceil(b Builder, x Value) Value { return b.Neg(b.Floor(b.Neg(x))) }

// Trunc rounds toward zero (not differentiable).
func Trunc(b Builder, x Value) Value { return b.Mul(Sign(b, x), b.Floor(b.Abs(x))) }

// Round rounds to the given number of decimals, halves to even, as
// NumPy (not differentiable).
func Round(b Builder, x Value, decimals int) Value {
	scale := math.Pow(10, float64(decimals))
	y := x
	if decimals != 0 {
		y = b.Mul(x, scalar(b, scale))
	}
	r := b.Floor(b.Add(y, scalar(b, 0.5)))
	// a half rounded up to an odd number goes down instead
	half := b.Equal(b.Sub(r, y), b.Add(zerosLike(b, y), scalar(b, 0.5)))
	odd := b.Equal(b.Sub(r, b.Mul(b.Floor(b.Mul(r, scalar(b, 0.5))), scalar(b, 2))), b.Add(zerosLike(b, y), scalar(b, 1)))
	r = b.Sub(r, b.Mul(half, odd))
	if decimals != 0 {
		r = b.Div(r, scalar(b, scale))
	}
	return b.StopGradient(r)
}

// Reciprocal is 1/x.
func Reciprocal(b Builder, x Value) Value { return b.Div(scalar(b, 1), x) }

// Erf is the error function.
func Erf(b Builder, x Value) Value { return b.Erf(x) }

// Erfc is 1 - erf(x).
func Erfc(b Builder, x Value) Value { return b.Sub(scalar(b, 1), b.Erf(x)) }

// Erfinv is the inverse error function, on (-1, 1).
func Erfinv(b Builder, x Value) Value { return b.ErfInv(x) }

// Deg2rad converts degrees to radians.
func Deg2rad(b Builder, x Value) Value { return b.Mul(x, scalar(b, math.Pi/180)) }

// Rad2deg converts radians to degrees.
func Rad2deg(b Builder, x Value) Value { return b.Mul(x, scalar(b, 180/math.Pi)) }

// Sinc is sin(πx)/(πx), 1 at 0.
func Sinc(b Builder, x Value) Value {
	zero := b.Equal(x, zerosLike(b, x))
	px := b.Mul(b.Where(zero, scalar(b, 1), x), scalar(b, math.Pi))
	return b.Where(zero, scalar(b, 1), b.Div(b.Sin(px), px))
}

// Signbit is 1 where x is negative (including -Inf), 0 elsewhere. Unlike
// NumPy it cannot see the sign of -0, which the engines compare as 0.
func Signbit(b Builder, x Value) Value { return b.Greater(scalar(b, 0), x) }

// Isnan is 1 where x is NaN.
func Isnan(b Builder, x Value) Value { return b.Sub(scalar(b, 1), b.Equal(x, x)) }

// Isinf is 1 where x is +Inf or -Inf.
func Isinf(b Builder, x Value) Value { return b.Add(Isposinf(b, x), Isneginf(b, x)) }

// Isposinf is 1 where x is +Inf.
func Isposinf(b Builder, x Value) Value {
	return b.Equal(x, b.Add(zerosLike(b, x), scalar(b, math.Inf(1))))
}

// Isneginf is 1 where x is -Inf.
func Isneginf(b Builder, x Value) Value {
	return b.Equal(x, b.Add(zerosLike(b, x), scalar(b, math.Inf(-1))))
}

// Isfinite is 1 where x is neither infinite nor NaN.
func Isfinite(b Builder, x Value) Value {
	return b.Mul(b.Equal(x, x), b.Sub(scalar(b, 1), Isinf(b, x)))
}

// NanToNum replaces NaN by nan, +Inf by posinf and -Inf by neginf
// (NumPy's defaults are 0 and the dtype's largest and smallest values:
// pass math.MaxFloat32 for float32).
func NanToNum(b Builder, x Value, nan, posinf, neginf float64) Value {
	y := b.Where(Isnan(b, x), scalar(b, nan), x)
	y = b.Where(Isposinf(b, x), scalar(b, posinf), y)
	return b.Where(Isneginf(b, x), scalar(b, neginf), y)
}

// Real is x: kerasgo's tensors are real.
func Real(b Builder, x Value) Value { return x }

// Imag is 0 for every value: kerasgo's tensors are real.
func Imag(b Builder, x Value) Value { return zerosLike(b, x) }

// Conj is x: the conjugate of a real tensor.
func Conj(b Builder, x Value) Value { return x }

// Conjugate is Conj.
func Conjugate(b Builder, x Value) Value { return x }

// Angle is the complex argument of a real value: π for negatives, 0
// otherwise (not differentiable).
func Angle(b Builder, x Value) Value {
	return b.Mul(b.Greater(scalar(b, 0), x), scalar(b, math.Pi))
}

// Isreal is 1 everywhere: kerasgo's tensors are real.
func Isreal(b Builder, x Value) Value { return filled(b, x.Shape(), 1) }

// Copy is x (values are immutable).
func Copy(b Builder, x Value) Value { return x }

// Clip limits x to [lo, hi]; the gradient is 1 inside and 0 outside.
func Clip(b Builder, x Value, lo, hi float64) Value {
	return b.Minimum(b.Maximum(x, scalar(b, lo)), scalar(b, hi))
}
