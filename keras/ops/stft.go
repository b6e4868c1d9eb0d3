package ops

import "math"

// StftOptions are Keras's stft and istft arguments beyond the signal and
// the frame sizes; the zero value is Keras's default: a Hann window,
// centred frames.
type StftOptions struct {
	// Window is "hann" (when empty) or "hamming", scipy's periodic
	// windows of sequence_length.
	Window string
	// WindowValues is a window of its own, sequence_length long: Keras's
	// window given as a tensor. It overrides Window.
	WindowValues []float64
	// NoWindow frames without a window (Keras's window=None).
	NoWindow bool
	// NoCenter starts the first frame at the signal's start instead of
	// centring frames on its samples (Keras's center=False).
	NoCenter bool
}

// stftWindow is the window the options give, sequence_length long,
// padded with zeros to fft_length as Keras pads it; ok is false (and the
// Builder has an error) for a bad window.
func stftWindow(b Builder, op string, o StftOptions, sequenceLength, fftLength int) (win []float64, ok bool) {
	w := make([]float64, sequenceLength)
	switch {
	case o.NoWindow:
		w = make([]float64, fftLength) // ones over the whole frame, as Keras's
		for i := range w {
			w[i] = 1
		}
		return w, true
	case o.WindowValues != nil:
		if len(o.WindowValues) != sequenceLength {
			failf(b, op, nil, "the window has %d values: give sequence_length = %d", len(o.WindowValues), sequenceLength)
			return nil, false
		}
		copy(w, o.WindowValues)
	default:
		a0, a1 := 0.5, 0.5 // hann
		switch o.Window {
		case "", "hann":
		case "hamming":
			a0, a1 = 0.54, 0.46
		default:
			failf(b, op, nil, "window %q: use \"hann\" or \"hamming\", or give WindowValues", o.Window)
			return nil, false
		}
		for i := range w {
			w[i] = a0 - a1*math.Cos(2*math.Pi*float64(i)/float64(sequenceLength))
		}
	}
	left := (fftLength - sequenceLength) / 2
	padded := make([]float64, fftLength)
	copy(padded[left:], w)
	return padded, true
}

// checkFrames validates stft's and istft's frame sizes.
func checkFrames(b Builder, op string, sequenceLength, sequenceStride, fftLength int) bool {
	if sequenceLength <= 0 || sequenceStride <= 0 || fftLength <= 0 {
		failf(b, op, nil, "sequence_length %d, sequence_stride %d and fft_length %d must be positive", sequenceLength, sequenceStride, fftLength)
		return false
	}
	if fftLength < sequenceLength {
		failf(b, op, nil, "fft_length %d must be at least sequence_length %d", fftLength, sequenceLength)
		return false
	}
	return true
}

// Stft is the short-time Fourier transform along the last axis of x,
// Keras's ops.stft: frames of fft_length samples, sequence_stride apart
// (after padding the signal by fft_length/2 reflected samples at each end
// unless NoCenter), each times the window, through Rfft. It returns the
// real and imaginary parts (..., frames, fft_length/2 + 1).
func Stft(b Builder, x Value, sequenceLength, sequenceStride, fftLength int, o StftOptions) (real, imag Value) {
	const op = "Stft"
	fail := func() (Value, Value) { return b.Fail(nil, b.Err()), b.Fail(nil, b.Err()) }
	if missing(b, op, []string{"x"}, x) || !checkFrames(b, op, sequenceLength, sequenceStride, fftLength) {
		return fail()
	}
	win, ok := stftWindow(b, op, o, sequenceLength, fftLength)
	if !ok {
		return fail()
	}
	s := x.Shape()
	if len(s) == 0 {
		failf(b, op, s, "x must have a time axis")
		return fail()
	}
	last := len(s) - 1
	if !o.NoCenter {
		widths := make([][2]int, len(s))
		widths[last] = [2]int{fftLength / 2, fftLength / 2}
		x = Pad(b, x, widths, PadReflect, 0)
	}
	n := x.Shape()[last]
	if n < fftLength {
		failf(b, op, s, "the signal %v has %d samples (after centring), fewer than fft_length %d", s, n, fftLength)
		return fail()
	}
	frames := make([]Value, (n-fftLength)/sequenceStride+1)
	for f := range frames {
		frames[f] = ExpandDims(b, sliceAxis(b, x, last, f*sequenceStride, fftLength), last)
	}
	framed := frames[0]
	if len(frames) > 1 {
		framed = b.Concat(last, frames...) // (..., frames, fft_length)
	}
	framed = b.Mul(framed, b.Constant(win, Shape{fftLength}))
	return Rfft(b, framed, fftLength)
}

// Istft is the inverse of Stft, Keras's ops.istft: each frame of the
// real and imaginary parts (..., frames, fft_length/2 + 1) through
// Irfft, times the window, overlapped and added sequence_stride apart,
// and divided by the overlapped squared window where that is above
// 1e-10 (as JAX's istft). The centring samples are cut off unless
// NoCenter; length > 0 keeps that many samples (Keras's length).
//
// With NoWindow the result is, as in Keras, also scaled by fft_length /
// sequence_stride (Keras divides by the stride where it divides by the
// window's sum otherwise).
func Istft(b Builder, real, imag Value, sequenceLength, sequenceStride, fftLength, length int, o StftOptions) Value {
	const op = "Istft"
	if missing(b, op, []string{"real", "imag"}, real, imag) || !checkFrames(b, op, sequenceLength, sequenceStride, fftLength) {
		return b.Fail(nil, b.Err())
	}
	s := real.Shape()
	if len(s) < 2 || !s.Equal(imag.Shape()) {
		return failf(b, op, s, "real %v and imag %v must be one shape (..., frames, fft_length/2 + 1)", s, imag.Shape())
	}
	win, ok := stftWindow(b, op, o, sequenceLength, fftLength)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	frames := Irfft(b, real, imag, fftLength) // (..., F, fft_length)
	frames = b.Mul(frames, b.Constant(win, Shape{fftLength}))
	timeAxis := len(s) - 2
	count := s[timeAxis]
	total := fftLength + sequenceStride*(count-1)
	var out Value
	norm := make([]float64, total)
	for f := range count {
		frame := b.Reshape(sliceAxis(b, frames, timeAxis, f, 1), append(s[:timeAxis].Clone(), fftLength))
		placed := PadAxis(b, frame, timeAxis, f*sequenceStride, total-f*sequenceStride-fftLength)
		if out == nil {
			out = placed
		} else {
			out = b.Add(out, placed)
		}
		for i, w := range win {
			norm[f*sequenceStride+i] += w * w
		}
	}
	scale := 1.0
	if o.NoWindow {
		scale = float64(fftLength) / float64(sequenceStride)
	}
	for i, v := range norm {
		if v > 1e-10 {
			norm[i] = scale / v
		} else {
			norm[i] = scale
		}
	}
	out = b.Mul(out, b.Constant(norm, Shape{total}))
	start, end := 0, total
	if !o.NoCenter {
		start, end = fftLength/2, total-fftLength/2
	}
	if length > 0 {
		end = start + length
	}
	end = min(end, total) // a longer length gets what there is, as Keras's slice does
	return sliceAxis(b, out, timeAxis, start, end-start)
}
