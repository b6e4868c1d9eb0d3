package ops

import "math"

// Zeros is a tensor of shape s holding 0.
func Zeros(b Builder, s ...int) Value { return filled(b, Shape(s).Clone(), 0) }

// Ones is a tensor of shape s holding 1.
func Ones(b Builder, s ...int) Value { return filled(b, Shape(s).Clone(), 1) }

// Empty is Zeros (kerasgo never hands out uninitialised memory).
func Empty(b Builder, s ...int) Value { return Zeros(b, s...) }

// Full is a tensor of shape s holding v.
func Full(b Builder, v float64, s ...int) Value { return filled(b, Shape(s).Clone(), v) }

// ZerosLike is Zeros of x's shape.
func ZerosLike(b Builder, x Value) Value { return filled(b, x.Shape(), 0) }

// OnesLike is Ones of x's shape.
func OnesLike(b Builder, x Value) Value { return filled(b, x.Shape(), 1) }

// EmptyLike is ZerosLike.
func EmptyLike(b Builder, x Value) Value { return filled(b, x.Shape(), 0) }

// FullLike is Full of x's shape.
func FullLike(b Builder, x Value, v float64) Value { return filled(b, x.Shape(), v) }

// ConvertToTensor is a constant holding data (row-major) of shape s.
func ConvertToTensor(b Builder, data []float64, s ...int) Value {
	if Shape(s).Size() != len(data) {
		return failf(b, "ConvertToTensor", Shape(s), "%d values do not fill the shape %v", len(data), s)
	}
	return constant(b, append([]float64(nil), data...), Shape(s).Clone())
}

// Array is ConvertToTensor.
func Array(b Builder, data []float64, s ...int) Value { return ConvertToTensor(b, data, s...) }

// Eye is an n×m matrix with ones on diagonal k (above the main one when
// positive).
func Eye(b Builder, n, m, k int) Value {
	if n <= 0 || m <= 0 {
		return failf(b, "Eye", nil, "n and m must be positive, got %d and %d", n, m)
	}
	d := make([]float64, n*m)
	for i := 0; i < n; i++ {
		if j := i + k; j >= 0 && j < m {
			d[i*m+j] = 1
		}
	}
	return b.Constant(d, Shape{n, m})
}

// Identity is the n×n identity matrix.
func Identity(b Builder, n int) Value { return Eye(b, n, n, 0) }

// Tri is an n×m matrix with ones on and below diagonal k.
func Tri(b Builder, n, m, k int) Value {
	if n <= 0 || m <= 0 {
		return failf(b, "Tri", nil, "n and m must be positive, got %d and %d", n, m)
	}
	d := make([]float64, n*m)
	for i := 0; i < n; i++ {
		for j := 0; j < m && j <= i+k; j++ {
			d[i*m+j] = 1
		}
	}
	return b.Constant(d, Shape{n, m})
}

// Arange is start, start+step, ... up to but not including stop.
func Arange(b Builder, start, stop, step float64) Value {
	if step == 0 {
		return failf(b, "Arange", nil, "step must not be 0")
	}
	n := int(math.Ceil((stop - start) / step))
	if n <= 0 {
		return failf(b, "Arange", nil, "[%v, %v) with step %v is empty, which kerasgo's tensors cannot be", start, stop, step)
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = start + float64(i)*step
	}
	return b.Constant(d, Shape{n})
}

// Linspace is num values evenly spaced from start to stop, stop included
// when endpoint.
func Linspace(b Builder, start, stop float64, num int, endpoint bool) Value {
	if num <= 0 {
		return failf(b, "Linspace", nil, "num must be positive, got %d", num)
	}
	return b.Constant(linspace(start, stop, num, endpoint), Shape{num})
}

func linspace(start, stop float64, num int, endpoint bool) []float64 {
	div := float64(num)
	if endpoint {
		div = float64(num - 1)
	}
	d := make([]float64, num)
	for i := range d {
		if div == 0 {
			d[i] = start
			continue
		}
		d[i] = start + (stop-start)*float64(i)/div
	}
	if endpoint && num > 1 {
		d[num-1] = stop
	}
	return d
}

// Logspace is base raised to Linspace(start, stop, num, endpoint).
func Logspace(b Builder, start, stop float64, num int, endpoint bool, base float64) Value {
	if num <= 0 {
		return failf(b, "Logspace", nil, "num must be positive, got %d", num)
	}
	d := linspace(start, stop, num, endpoint)
	for i, v := range d {
		d[i] = math.Pow(base, v)
	}
	return b.Constant(d, Shape{num})
}

// Geomspace is num values in geometric progression from start to stop.
func Geomspace(b Builder, start, stop float64, num int, endpoint bool) Value {
	if num <= 0 || start == 0 || stop == 0 || (start < 0) != (stop < 0) {
		return failf(b, "Geomspace", nil, "start %v and stop %v must be nonzero and of one sign, and num (%d) positive", start, stop, num)
	}
	sign := 1.0
	if start < 0 {
		sign, start, stop = -1, -start, -stop
	}
	d := linspace(math.Log10(start), math.Log10(stop), num, endpoint)
	for i, v := range d {
		d[i] = sign * math.Pow(10, v)
	}
	d[0] = sign * start
	if endpoint && num > 1 {
		d[num-1] = sign * stop
	}
	return b.Constant(d, Shape{num})
}

// signalWindow builds a length-m window from f(n) for n in [0, m).
func signalWindow(b Builder, op string, m int, f func(n, m float64) float64) Value {
	if m <= 0 {
		return failf(b, op, nil, "the window length must be positive, got %d", m)
	}
	d := make([]float64, m)
	if m == 1 {
		d[0] = 1
		return b.Constant(d, Shape{1})
	}
	for i := range d {
		d[i] = f(float64(i), float64(m))
	}
	return b.Constant(d, Shape{m})
}

// Bartlett is the triangular window of length m.
func Bartlett(b Builder, m int) Value {
	return signalWindow(b, "Bartlett", m, func(n, m float64) float64 { return 1 - math.Abs(2*n/(m-1)-1) })
}

// Blackman is the Blackman window of length m.
func Blackman(b Builder, m int) Value {
	return signalWindow(b, "Blackman", m, func(n, m float64) float64 {
		return 0.42 - 0.5*math.Cos(2*math.Pi*n/(m-1)) + 0.08*math.Cos(4*math.Pi*n/(m-1))
	})
}

// Hamming is the Hamming window of length m.
func Hamming(b Builder, m int) Value {
	return signalWindow(b, "Hamming", m, func(n, m float64) float64 { return 0.54 - 0.46*math.Cos(2*math.Pi*n/(m-1)) })
}

// Hanning is the Hann window of length m.
func Hanning(b Builder, m int) Value {
	return signalWindow(b, "Hanning", m, func(n, m float64) float64 { return 0.5 - 0.5*math.Cos(2*math.Pi*n/(m-1)) })
}

// Kaiser is the Kaiser window of length m and shape beta.
func Kaiser(b Builder, m int, beta float64) Value {
	return signalWindow(b, "Kaiser", m, func(n, m float64) float64 {
		r := 2*n/(m-1) - 1
		return besselI0(beta*math.Sqrt(1-r*r)) / besselI0(beta)
	})
}

// besselI0 is the modified Bessel function of the first kind, order 0,
// by its power series (converges for every x).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 500; k++ {
		term *= (x / 2) * (x / 2) / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

// Vander is the Vandermonde matrix of the 1-D x with n columns (n 0: as
// many as x has values), highest power first unless increasing.
func Vander(b Builder, x Value, n int, increasing bool) Value {
	if missing(b, "Vander", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if len(x.Shape()) != 1 {
		return failf(b, "Vander", x.Shape(), "x must be 1-D, got %v", x.Shape())
	}
	if n <= 0 {
		n = x.Shape()[0]
	}
	cols := make([]Value, n)
	col := b.Reshape(x, Shape{x.Shape()[0], 1})
	pow := filled(b, col.Shape(), 1)
	for i := 0; i < n; i++ {
		j := n - 1 - i
		if increasing {
			j = i
		}
		cols[j] = pow
		pow = b.Mul(pow, col)
	}
	if n == 1 {
		return cols[0]
	}
	return b.Concat(1, cols...)
}

// Meshgrid returns coordinate grids of the 1-D xs: with ij indexing
// the grid's axis i follows xs[i]; with xy (NumPy's default) the first
// two axes swap.
func Meshgrid(b Builder, xs []Value, ij bool) []Value {
	if missing(b, "Meshgrid", names("xs", len(xs)), xs...) {
		return failedList(b, len(xs))
	}
	s := make(Shape, len(xs))
	for i, x := range xs {
		if len(x.Shape()) != 1 {
			failf(b, "Meshgrid", x.Shape(), "xs[%d] must be 1-D, got %v", i, x.Shape())
			return failedList(b, len(xs))
		}
		s[i] = x.Shape()[0]
	}
	if !ij && len(s) >= 2 {
		s[0], s[1] = s[1], s[0]
	}
	out := make([]Value, len(xs))
	for i, x := range xs {
		axis := i
		if !ij && i < 2 && len(xs) >= 2 {
			axis = 1 - i
		}
		shape := make(Shape, len(s))
		for j := range shape {
			shape[j] = 1
		}
		shape[axis] = x.Shape()[0]
		out[i] = broadcastTo(b, b.Reshape(x, shape), s)
	}
	return out
}
