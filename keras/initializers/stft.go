package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// STFT is Keras's keras.initializers.STFT: the kernel of a short-time
// Fourier transform written as a convolution, of shape (frame length, 1,
// bins) for bins = fft length / 2 + 1. Entry (t, 0, f) is cos (Side
// "real") or sin ("imag") of -2π·t·f/((bins-1)·2), times the window at t,
// divided by the window's L2 norm (Scaling "density") or L1 norm
// ("spectrum").
type STFT struct {
	Side string // "real" or "imag"
	// Window is "hann", "hamming", "blackman", "bartlett" or "boxcar"
	// (SciPy's get_window names Keras takes), or "" for none.
	Window string
	// Scaling is "density", "spectrum" or "" (none).
	Scaling string
	// Periodic takes the window as periodic (SciPy's fftbins): the
	// symmetric window one longer, without its last point.
	Periodic bool
}

// Name returns the initializer's name.
func (s STFT) Name() string { return "stft" }

// Check reports a side, window or scaling the initializer does not take.
func (s STFT) Check() error {
	if s.Side != "real" && s.Side != "imag" {
		return fmt.Errorf("side should be \"real\" or \"imag\", not %q", s.Side)
	}
	if _, err := Window(s.Window, 2, false); err != nil {
		return err
	}
	switch s.Scaling {
	case "", "density", "spectrum":
	default:
		return fmt.Errorf("scaling %q is invalid: use \"density\", \"spectrum\" or none", s.Scaling)
	}
	return nil
}

// Init implements Initializer for a shape (frame length, 1, bins).
func (s STFT) Init(shape backend.Shape, _ *rand.Rand) []float32 {
	out := make([]float32, shape.Size())
	if len(shape) != 3 || shape[2] < 2 {
		return out
	}
	frames, channels, bins := shape[0], shape[1], shape[2]
	win, err := Window(s.Window, frames, s.Periodic)
	if err != nil {
		return out
	}
	scale := 1.0
	if win != nil {
		sq, abs := 0.0, 0.0
		for _, w := range win {
			sq, abs = sq+w*w, abs+math.Abs(w)
		}
		switch s.Scaling {
		case "density":
			scale = math.Sqrt(sq)
		case "spectrum":
			scale = abs
		}
	}
	fft := float64((bins - 1) * 2)
	for t := range frames {
		for c := range channels {
			for f := range bins {
				arg := -2 * float64(t) * float64(f) / fft * math.Pi
				v := math.Cos(arg)
				if s.Side == "imag" {
					v = math.Sin(arg)
				}
				if win != nil {
					v = v * win[t] / scale
				}
				out[(t*channels+c)*bins+f] = float32(v)
			}
		}
	}
	return out
}

// Window is SciPy's get_window(name, n, fftbins=periodic) for the windows
// Keras's audio layers use; nil for name "".
func Window(name string, n int, periodic bool) ([]float64, error) {
	if name == "" {
		return nil, nil
	}
	m := n
	if periodic {
		m = n + 1
	}
	w := make([]float64, m)
	cosine := func(a ...float64) {
		for i := range w {
			x := 2 * math.Pi * float64(i) / float64(m-1)
			v := 0.0
			for k, c := range a {
				v += c * math.Cos(float64(k)*x) * math.Pow(-1, float64(k))
			}
			w[i] = v
		}
	}
	switch name {
	case "hann", "hanning":
		cosine(0.5, 0.5)
	case "hamming":
		cosine(0.54, 0.46)
	case "blackman":
		cosine(0.42, 0.5, 0.08)
	case "bartlett":
		for i := range w {
			w[i] = 1 - math.Abs(2*float64(i)/float64(m-1)-1)
		}
	case "boxcar", "rectangular", "ones":
		for i := range w {
			w[i] = 1
		}
	default:
		return nil, fmt.Errorf("unknown window %q: use hann, hamming, blackman, bartlett or boxcar", name)
	}
	if m == 1 {
		w[0] = 1
	}
	return w[:n], nil
}
