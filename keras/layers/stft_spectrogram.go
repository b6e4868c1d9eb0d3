package layers

import (
	"fmt"
	"math"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// STFTSpectrogram computes the spectrogram of signals (batch, time,
// channels), like keras.layers.STFTSpectrogram: a short-time Fourier
// transform written as a strided 1-D convolution of each channel with
// the kernels real_kernel and imag_kernel (frame length, 1, bins), which
// keras.initializers.STFT fills and training may change, as in Keras
// (they are trainable weights). Mode picks the output:
//
//   - "log" (the default): log of the magnitude, max(sqrt(power), 1e-7);
//   - "magnitude": sqrt(max(re² + im², 1e-7));
//   - "psd": the power, its inner bins doubled;
//   - "real", "imag", "angle": one part, or atan2(im, re);
//   - "stft": the real then the imaginary bins.
//
// The output is (batch, frames, channels·bins), or (batch, frames, bins,
// channels) with ExpandDims.
type STFTSpectrogram struct {
	Mode        string // the default "log" when empty
	FrameLength int    // zero means Keras's 256
	FrameStep   int    // zero means FrameLength / 2
	FFTLength   int    // zero means the power of two at or above FrameLength
	// Window is "hann" (the default when empty), "hamming", "blackman",
	// "bartlett" or "boxcar"; NoWindow for none.
	Window   string
	NoWindow bool
	Periodic bool
	// Scaling is "density" (the default when empty) or "spectrum";
	// NoScaling for none.
	Scaling   string
	NoScaling bool
	// Padding is "valid" (the default when empty) or "same".
	Padding    string
	ExpandDims bool
	Base

	real, imag *Weight
}

// ClassName returns "STFTSpectrogram".
func (*STFTSpectrogram) ClassName() string { return "STFTSpectrogram" }

// settings are the layer's settings with Keras's defaults filled in.
type stftSettings struct {
	mode, window, scaling, padding string
	frame, step, fft               int
}

func (l *STFTSpectrogram) settings() stftSettings {
	s := stftSettings{mode: l.Mode, window: l.Window, scaling: l.Scaling, padding: l.Padding, frame: l.FrameLength, step: l.FrameStep, fft: l.FFTLength}
	if s.mode == "" {
		s.mode = "log"
	}
	if s.window == "" {
		s.window = "hann"
	}
	if l.NoWindow {
		s.window = ""
	}
	if s.scaling == "" {
		s.scaling = "density"
	}
	if l.NoScaling {
		s.scaling = ""
	}
	if s.padding == "" {
		s.padding = "valid"
	}
	if s.frame == 0 {
		s.frame = 256
	}
	if s.step == 0 {
		s.step = s.frame / 2
	}
	if s.fft == 0 && s.frame > 0 {
		s.fft = 1 << int(math.Ceil(math.Log2(float64(s.frame))))
	}
	return s
}

func (l *STFTSpectrogram) check(s stftSettings) error {
	if s.frame < 1 {
		return fmt.Errorf("frame_length must be positive, got %d", l.FrameLength)
	}
	if s.step < 1 || s.step > s.frame {
		return fmt.Errorf("frame_step should be a positive integer not greater than frame_length (%d), got %d", s.frame, s.step)
	}
	if s.fft < s.frame {
		return fmt.Errorf("fft_length should be not less than frame_length (%d), got %d", s.frame, s.fft)
	}
	if !slices.Contains([]string{"log", "magnitude", "psd", "real", "imag", "angle", "stft"}, s.mode) {
		return fmt.Errorf("mode %q is invalid: use log, magnitude, psd, real, imag, angle or stft", s.mode)
	}
	if s.padding != "valid" && s.padding != "same" {
		return fmt.Errorf("padding %q is invalid: use \"valid\" or \"same\"", s.padding)
	}
	return initializers.STFT{Side: "real", Window: s.window, Scaling: s.scaling}.Check()
}

// Build checks the settings and adds the kernels.
func (l *STFTSpectrogram) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 3 {
		return nil, fmt.Errorf("expected signals of shape (batch, time, channels), received %v", in)
	}
	s := l.settings()
	if err := l.check(s); err != nil {
		return nil, err
	}
	bins := s.fft/2 + 1
	shape := backend.Shape{s.frame, 1, bins}
	kernel := func(side string) initializers.STFT {
		return initializers.STFT{Side: side, Window: s.window, Scaling: s.scaling, Periodic: l.Periodic}
	}
	if s.mode != "imag" {
		if l.real, err = l.AddWeight("real_kernel", shape, kernel("real")); err != nil {
			return nil, err
		}
	}
	if s.mode != "real" {
		if l.imag, err = l.AddWeight("imag_kernel", shape, kernel("imag")); err != nil {
			return nil, err
		}
	}
	frames := -1
	if in[1] > 0 {
		if s.padding == "same" {
			frames = (in[1] + s.step - 1) / s.step
		} else if frames = (in[1]-s.frame)/s.step + 1; in[1] < s.frame {
			return nil, fmt.Errorf("signals of %d steps are shorter than frame_length %d (padding \"valid\")", in[1], s.frame)
		}
	}
	if s.mode == "stft" {
		bins *= 2
	}
	if l.ExpandDims {
		return backend.Shape{in[0], frames, bins, in[2]}, nil
	}
	if in[2] < 1 {
		return nil, fmt.Errorf("signals %v need a known number of channels", in)
	}
	return backend.Shape{in[0], frames, in[2] * bins}, nil
}

// Call computes the spectrogram.
func (l *STFTSpectrogram) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s := l.settings()
	shape := x.Shape()
	n, t, c := shape[0], shape[1], shape[2]
	signals := b.Reshape(b.Transpose(x, 0, 2, 1), backend.Shape{n * c, t, 1})
	pad := backend.Valid
	if s.padding == "same" {
		pad = backend.Same
	}
	conv := func(w *Weight) backend.Value { // (n, c, bins, frames)
		y := ops.Conv(b, signals, ctx.Weight(w), ops.ConvOptions{Strides: []int{s.step}, Padding: pad})
		ys := y.Shape()
		return b.Reshape(b.Transpose(y, 0, 2, 1), backend.Shape{n, c, ys[2], ys[1]})
	}
	var re, im backend.Value
	if l.real != nil {
		re = conv(l.real)
	}
	if l.imag != nil {
		im = conv(l.imag)
	}
	var y backend.Value
	switch s.mode {
	case "real":
		y = re
	case "imag":
		y = im
	case "angle":
		y = ops.Arctan2(b, im, re)
	case "stft":
		y = b.Concat(2, re, im)
	default:
		power := b.Add(b.Square(re), b.Square(im))
		switch s.mode {
		case "psd":
			ps := power.Shape()
			inner := b.Slice(power, []int{0, 0, 1, 0}, []int{ps[0], ps[1], ps[2] - 2, ps[3]})
			y = b.Add(power, ops.Pad(b, inner, [][2]int{{0, 0}, {0, 0}, {1, 1}, {0, 0}}, ops.PadConstant, 0))
		case "magnitude":
			y = b.Sqrt(b.Maximum(power, b.Scalar(1e-7)))
		default: // log
			y = b.Log(b.Maximum(b.Sqrt(b.Maximum(power, b.Scalar(1e-7))), b.Scalar(1e-7)))
		}
	}
	ys := y.Shape() // (n, c, bins, frames)
	if l.ExpandDims {
		return b.Transpose(y, 0, 3, 2, 1)
	}
	return b.Transpose(b.Reshape(y, backend.Shape{n, ys[1] * ys[2], ys[3]}), 0, 2, 1)
}

// GetConfig returns Keras's config.
func (l *STFTSpectrogram) GetConfig() (serialization.Config, error) {
	s := l.settings()
	cfg := serialization.Config{"mode": s.mode, "frame_length": s.frame, "frame_step": nil, "fft_length": nil, "window": nil,
		"periodic": l.Periodic, "scaling": nil, "padding": s.padding, "data_format": "channels_last", "expand_dims": l.ExpandDims}
	if l.FrameStep != 0 {
		cfg["frame_step"] = l.FrameStep
	}
	if l.FFTLength != 0 {
		cfg["fft_length"] = l.FFTLength
	}
	if s.window != "" {
		cfg["window"] = s.window
	}
	if s.scaling != "" {
		cfg["scaling"] = s.scaling
	}
	return cfg, nil
}

func init() {
	mustRegister("STFTSpectrogram", func(r *serialization.Reader) (Layer, error) {
		l := &STFTSpectrogram{Mode: r.String("mode", "log"), FrameLength: r.Int("frame_length", 256), Periodic: r.Bool("periodic", false),
			Padding: r.String("padding", "valid"), ExpandDims: r.Bool("expand_dims", false)}
		if v, ok := r.Value("frame_step"); ok && v != nil {
			l.FrameStep = r.Int("frame_step", 0)
		}
		if v, ok := r.Value("fft_length"); ok && v != nil {
			l.FFTLength = r.Int("fft_length", 0)
		}
		if l.NoWindow = r.IsNull("window"); !l.NoWindow {
			l.Window = r.String("window", "hann")
		}
		if l.NoScaling = r.IsNull("scaling"); !l.NoScaling {
			l.Scaling = r.String("scaling", "density")
		}
		expectChannelsLast(r)
		return l, nil
	})
}
