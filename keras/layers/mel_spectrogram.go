package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MelSpectrogram turns audio signals (batch, time) into mel
// spectrograms (batch, mel bins, frames), like
// keras.layers.MelSpectrogram: the magnitude of ops.Stft (centred frames,
// Window) raised to MagExp, through Keras's triangular mel filter bank
// (linear_to_mel_weight_matrix, HTK's mel scale) from MinFreq to MaxFreq,
// then, with power_to_db, 10·log10(max(x, MinPower)) less the same of
// RefPower, floored at TopDB below the batch's highest value (Keras
// takes the maximum over the whole batch).
//
// The zero value is Keras's defaults: FFT length 2048, stride 512, 128
// mel bins from 20 Hz to half of 16 kHz, power in dB with top 80. Set
// NoPowerToDB for the linear mel power.
type MelSpectrogram struct {
	FFTLength      int     // zero means 2048
	SequenceStride int     // zero means 512
	SequenceLength int     // zero means FFTLength
	Window         string  // "hann" (the default when empty) or "hamming"
	NoWindow       bool    // frames without a window (Keras's window=None)
	SamplingRate   int     // zero means 16000
	NumMelBins     int     // zero means 128
	MinFreq        float64 // zero means 20; MinFreqZero for 0 Hz
	MinFreqZero    bool    // start the filter bank at 0 Hz (Keras's min_freq=0)
	MaxFreq        float64 // zero means SamplingRate / 2
	NoPowerToDB    bool
	TopDB          float64 // zero means 80
	MagExp         float64 // zero means 2
	MinPower       float64 // zero means 1e-10
	RefPower       float64 // zero means 1
	Base
}

// ClassName returns "MelSpectrogram".
func (*MelSpectrogram) ClassName() string { return "MelSpectrogram" }

// filled returns the settings with Keras's defaults for zero values.
func (l *MelSpectrogram) filled() MelSpectrogram {
	c := *l
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.FFTLength, 2048)
	def(&c.SequenceStride, 512)
	def(&c.SequenceLength, c.FFTLength)
	def(&c.SamplingRate, 16000)
	def(&c.NumMelBins, 128)
	if !c.MinFreqZero {
		deff(&c.MinFreq, 20)
	}
	deff(&c.MaxFreq, float64(c.SamplingRate/2))
	deff(&c.TopDB, 80)
	deff(&c.MagExp, 2)
	deff(&c.MinPower, 1e-10)
	deff(&c.RefPower, 1)
	if c.Window == "" {
		c.Window = "hann"
	}
	return c
}

// Build checks the settings.
func (l *MelSpectrogram) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 2 {
		return nil, fmt.Errorf("expected signals of shape (batch, time), received %v", in)
	}
	c := l.filled()
	switch {
	case c.FFTLength < 1 || c.SequenceStride < 1 || c.SequenceLength < 1:
		return nil, fmt.Errorf("fft_length %d, sequence_stride %d and sequence_length %d must be positive", c.FFTLength, c.SequenceStride, c.SequenceLength)
	case c.FFTLength < c.SequenceLength:
		return nil, fmt.Errorf("fft_length must be greater than or equal to sequence_length: got sequence_length %d, fft_length %d", c.SequenceLength, c.FFTLength)
	case c.NumMelBins < 1 || c.SamplingRate < 1:
		return nil, fmt.Errorf("num_mel_bins %d and sampling_rate %d must be positive", c.NumMelBins, c.SamplingRate)
	case c.MinFreq < 0 || c.MaxFreq <= c.MinFreq:
		return nil, fmt.Errorf("min_freq %v and max_freq %v must satisfy 0 <= min_freq < max_freq", c.MinFreq, c.MaxFreq)
	case c.Window != "hann" && c.Window != "hamming":
		return nil, fmt.Errorf("unknown window %q: use hann or hamming", c.Window)
	}
	frames := -1
	if in[1] > 0 {
		frames = in[1]/c.SequenceStride + 1 // centred: padded by fft_length/2 at each end
	}
	return backend.Shape{in[0], c.NumMelBins, frames}, nil
}

// Call computes the mel spectrogram.
func (l *MelSpectrogram) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	c := l.filled()
	re, im := ops.Stft(b, in[0], c.SequenceLength, c.SequenceStride, c.FFTLength, ops.StftOptions{Window: c.Window, NoWindow: c.NoWindow})
	spec := b.Sqrt(b.Add(b.Square(re), b.Square(im))) // (batch, frames, bins)
	if c.MagExp != 1 {
		spec = ops.Power(b, spec, b.Scalar(c.MagExp))
	}
	bins := spec.Shape()[2]
	mel := ops.Tensordot(b, spec, b.Constant(melWeights(c.NumMelBins, bins, float64(c.SamplingRate), c.MinFreq, c.MaxFreq), backend.Shape{bins, c.NumMelBins}), []int{2}, []int{0})
	if !c.NoPowerToDB {
		db := b.Mul(ops.Log10(b, b.Maximum(mel, b.Scalar(c.MinPower))), b.Scalar(10))
		db = b.Sub(db, b.Scalar(10*math.Log10(math.Max(math.Abs(c.RefPower), c.MinPower))))
		mel = b.Maximum(db, b.Sub(ops.Max(b, db), b.Scalar(c.TopDB)))
	}
	return b.Transpose(mel, 0, 2, 1)
}

// melWeights is Keras's linear_to_mel_weight_matrix (TensorFlow's):
// (bins, mels) triangular filters on the HTK mel scale, row 0 (the DC
// bin) zero.
func melWeights(mels, bins int, rate, lo, hi float64) []float64 {
	toMel := func(hz float64) float64 { return 1127 * math.Log(1+hz/700) }
	edges := make([]float64, mels+2)
	mlo, mhi := toMel(lo), toMel(hi)
	for i := range edges {
		edges[i] = mlo + (mhi-mlo)*float64(i)/float64(mels+1)
	}
	w := make([]float64, bins*mels)
	for k := 1; k < bins; k++ {
		m := toMel(rate / 2 * float64(k) / float64(bins-1))
		for j := range mels {
			lower := (m - edges[j]) / (edges[j+1] - edges[j])
			upper := (edges[j+2] - m) / (edges[j+2] - edges[j+1])
			w[k*mels+j] = math.Max(0, math.Min(lower, upper))
		}
	}
	return w
}

// GetConfig returns Keras's config.
func (l *MelSpectrogram) GetConfig() (serialization.Config, error) {
	c := l.filled()
	var window any = c.Window
	if c.NoWindow {
		window = nil
	}
	return serialization.Config{"fft_length": c.FFTLength, "sequence_stride": c.SequenceStride, "sequence_length": c.SequenceLength,
		"window": window, "sampling_rate": c.SamplingRate, "num_mel_bins": c.NumMelBins, "min_freq": c.MinFreq, "max_freq": c.MaxFreq,
		"power_to_db": !c.NoPowerToDB, "top_db": c.TopDB, "mag_exp": c.MagExp, "min_power": c.MinPower, "ref_power": c.RefPower}, nil
}

func init() {
	mustRegister("MelSpectrogram", func(r *serialization.Reader) (Layer, error) {
		l := &MelSpectrogram{FFTLength: r.Int("fft_length", 2048), SequenceStride: r.Int("sequence_stride", 512), SamplingRate: r.Int("sampling_rate", 16000),
			NumMelBins: r.Int("num_mel_bins", 128), MinFreq: r.Float("min_freq", 20), NoPowerToDB: !r.Bool("power_to_db", true),
			TopDB: r.Float("top_db", 80), MagExp: r.Float("mag_exp", 2), MinPower: r.Float("min_power", 1e-10), RefPower: r.Float("ref_power", 1)}
		l.MinFreqZero = l.MinFreq == 0
		if v, ok := r.Value("sequence_length"); ok && v != nil {
			l.SequenceLength = r.Int("sequence_length", 0)
		}
		if v, ok := r.Value("max_freq"); ok && v != nil {
			l.MaxFreq = r.Float("max_freq", 0)
		}
		if l.NoWindow = r.IsNull("window"); !l.NoWindow {
			l.Window = r.String("window", "hann")
		}
		return l, nil
	})
}
