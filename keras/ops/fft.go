package ops

import "math"

// Keras's Fourier transforms take and return a complex tensor as a pair
// (real, imaginary) of real tensors; kerasgo's do the same. Each is a
// product with the transform's matrix of cosines and sines (n² work for
// an axis of n), exact and differentiable on every engine.

// dft returns the (n, m) matrices cos(2π·j·k/n) and sin(2π·j·k/n), j < n
// along the rows and k < m along the columns.
func dft(b Builder, n, m int, length int) (cos, sin Value) {
	c := make([]float64, n*m)
	s := make([]float64, n*m)
	for j := 0; j < n; j++ {
		for k := 0; k < m; k++ {
			theta := 2 * math.Pi * float64((j*k)%length) / float64(length)
			c[j*m+k], s[j*m+k] = math.Cos(theta), math.Sin(theta)
		}
	}
	return b.Constant(c, Shape{n, m}), b.Constant(s, Shape{n, m})
}

// lastAxisProduct is x (..., n) times a (n, m): (..., m).
func lastAxisProduct(b Builder, x, a Value) Value {
	s := x.Shape()
	n, m := a.Shape()[0], a.Shape()[1]
	rows := s[:len(s)-1].Size()
	y := b.MatMul(b.Reshape(x, Shape{rows, n}), a)
	return b.Reshape(y, append(s[:len(s)-1].Clone(), m))
}

// complexPair checks a (real, imaginary) pair.
func complexPair(b Builder, op string, re, im Value) bool {
	if missing(b, op, []string{"real", "imag"}, re, im) {
		return false
	}
	if !re.Shape().Equal(im.Shape()) || len(re.Shape()) == 0 {
		failf(b, op, re.Shape(), "the real part %v and the imaginary part %v must have one shape, with at least one axis", re.Shape(), im.Shape())
		return false
	}
	return true
}

// transform is the DFT of (re, im) along the last axis; inverse uses
// e^{+iθ} and divides by n.
func transform(b Builder, re, im Value, inverse bool) (Value, Value) {
	n := lastDim(re.Shape())
	c, s := dft(b, n, n, n)
	if inverse {
		s = b.Neg(s)
	}
	// (a+ib)(cos - i sin) = a cos + b sin + i(b cos - a sin)
	outRe := b.Add(lastAxisProduct(b, re, c), lastAxisProduct(b, im, s))
	outIm := b.Sub(lastAxisProduct(b, im, c), lastAxisProduct(b, re, s))
	if inverse {
		k := scalar(b, 1/float64(n))
		outRe, outIm = b.Mul(outRe, k), b.Mul(outIm, k)
	}
	return outRe, outIm
}

// Fft is the discrete Fourier transform along the last axis.
func Fft(b Builder, re, im Value) (Value, Value) {
	if !complexPair(b, "Fft", re, im) {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	return transform(b, re, im, false)
}

// transform2 is transform along the last two axes.
func transform2(b Builder, op string, re, im Value, inverse bool) (Value, Value) {
	if !complexPair(b, op, re, im) {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	if len(re.Shape()) < 2 {
		bad := failf(b, op, re.Shape(), "the input %v needs two axes", re.Shape())
		return bad, bad
	}
	re, im = transform(b, re, im, inverse)
	re, im = Swapaxes(b, re, -1, -2), Swapaxes(b, im, -1, -2)
	re, im = transform(b, re, im, inverse)
	return Swapaxes(b, re, -1, -2), Swapaxes(b, im, -1, -2)
}

// Fft2 is the two-dimensional transform over the last two axes.
func Fft2(b Builder, re, im Value) (Value, Value) { return transform2(b, "Fft2", re, im, false) }

// Ifft2 is the inverse of Fft2.
func Ifft2(b Builder, re, im Value) (Value, Value) { return transform2(b, "Ifft2", re, im, true) }

// Rfft is the transform of the real x along its last axis, cut or padded
// with zeros to fftLength (0: the axis's length): the fftLength/2+1
// frequencies up to Nyquist, as (real, imaginary).
func Rfft(b Builder, x Value, fftLength int) (Value, Value) {
	if missing(b, "Rfft", []string{"x"}, x) || len(x.Shape()) == 0 {
		bad := failf(b, "Rfft", nil, "x must be a tensor with at least one axis")
		return bad, bad
	}
	n := lastDim(x.Shape())
	if fftLength <= 0 {
		fftLength = n
	}
	last := len(x.Shape()) - 1
	switch {
	case fftLength < n:
		x = sliceAxis(b, x, last, 0, fftLength)
	case fftLength > n:
		x = PadAxis(b, x, last, 0, fftLength-n)
	}
	m := fftLength/2 + 1
	c, s := dft(b, fftLength, m, fftLength)
	return lastAxisProduct(b, x, c), b.Neg(lastAxisProduct(b, x, s))
}

// Irfft is the inverse of Rfft: from the m frequencies (real, imaginary)
// along the last axis, the real signal of fftLength values (0: 2(m-1)).
func Irfft(b Builder, re, im Value, fftLength int) Value {
	if !complexPair(b, "Irfft", re, im) {
		return b.Fail(nil, b.Err())
	}
	m := lastDim(re.Shape())
	if fftLength <= 0 {
		fftLength = 2 * (m - 1)
	}
	if fftLength <= 0 {
		return failf(b, "Irfft", re.Shape(), "an output of %d values: give fft_length", fftLength)
	}
	use := min(m, fftLength/2+1)
	last := len(re.Shape()) - 1
	re, im = sliceAxis(b, re, last, 0, use), sliceAxis(b, im, last, 0, use)
	// x_t = (1/N) Σ_k w_k (Re_k cos θ - Im_k sin θ), w_k = 2 but for the
	// zero frequency and Nyquist
	c := make([]float64, use*fftLength)
	s := make([]float64, use*fftLength)
	for k := 0; k < use; k++ {
		w := 2.0
		if k == 0 || (fftLength%2 == 0 && k == fftLength/2) {
			w = 1
		}
		for t := 0; t < fftLength; t++ {
			theta := 2 * math.Pi * float64((k*t)%fftLength) / float64(fftLength)
			c[k*fftLength+t] = w * math.Cos(theta) / float64(fftLength)
			s[k*fftLength+t] = w * math.Sin(theta) / float64(fftLength)
		}
	}
	cm, sm := b.Constant(c, Shape{use, fftLength}), b.Constant(s, Shape{use, fftLength})
	return b.Sub(lastAxisProduct(b, re, cm), lastAxisProduct(b, im, sm))
}
