package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomGaussianBlur blurs some images during training, like
// keras.layers.RandomGaussianBlur: each image is blurred with a
// probability drawn per image from the factor's range, by Keras's
// image.gaussian_blur with a KernelSize kernel and sigmas drawn for the
// batch (one per axis) from the sigma's range, and the batch is clipped
// to ValueRange. Outside training it passes its input through.
//
// A single Factor f gives the range (0, f), a single Sigma s the range
// (0, s); Keras's defaults are Factor 1 and Sigma 1, which the zero
// values are not: set them.
type RandomGaussianBlur struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	// KernelSize is (width, height), both odd, as Keras's kernel_size
	// pair; zero means Keras's default 3×3.
	KernelSize [2]int
	Sigma      float64    // in [0, 1]
	SigmaRange [2]float64 // (lower, upper) instead of Sigma, each in [0, 1]
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomGaussianBlur".
func (*RandomGaussianBlur) ClassName() string { return "RandomGaussianBlur" }

func (l *RandomGaussianBlur) kernelSize() [2]int {
	if l.KernelSize == ([2]int{}) {
		return [2]int{3, 3}
	}
	return l.KernelSize
}

// Build checks the settings; the shape is unchanged.
func (l *RandomGaussianBlur) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Sigma, l.SigmaRange, 0, 1); err != nil {
		return nil, fmt.Errorf("sigma: %w", err)
	}
	if k := l.kernelSize(); k[0] < 1 || k[1] < 1 || k[0]%2 == 0 || k[1]%2 == 0 {
		return nil, fmt.Errorf("kernel_size must be odd positive numbers, got %v", k)
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call blurs the chosen images in training.
func (l *RandomGaussianBlur) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	apply := coin(b, x, f[0], f[1])
	s, _ := factorRange(l.Sigma, l.SigmaRange, 0, 1)
	sigma := b.Add(b.Mul(b.RandomUniform(backend.Shape{2}), b.Scalar(s[1]-s[0])), b.Scalar(s[0]+1e-6))
	k := l.kernelSize()
	kx := gaussianTaps(b, k[0], b.Reshape(b.Slice(sigma, []int{0}, []int{1}), backend.Shape{1, 1}), backend.Shape{1, k[0]})
	ky := gaussianTaps(b, k[1], b.Reshape(b.Slice(sigma, []int{1}, []int{1}), backend.Shape{1, 1}), backend.Shape{k[1], 1})
	c := x.Shape()[3]
	ones := make([]float64, c)
	for i := range ones {
		ones[i] = 1
	}
	kernel := b.Mul(b.Reshape(b.Mul(ky, kx), backend.Shape{k[1], k[0], 1, 1}), b.Constant(ones, backend.Shape{1, 1, c, 1}))
	blurred := ops.DepthwiseConv(b, x, kernel, ops.ConvOptions{Padding: backend.Same})
	vr := colorRange(l.ValueRange)
	return clip(b, ops.Where(b, apply, blurred, x), vr[0], vr[1])
}

// gaussianTaps is the normalised Gaussian of n taps around the centre
// with a computed sigma (shape (1, 1)), shaped s: Keras's
// _get_gaussian_kernel1d.
func gaussianTaps(b backend.Builder, n int, sigma backend.Value, s backend.Shape) backend.Value {
	d := make([]float64, n)
	for i := range d {
		d[i] = float64(i) - float64(n-1)/2
	}
	z := b.Div(b.Constant(d, backend.Shape{1, n}), sigma)
	g := b.Exp(b.Mul(b.Scalar(-0.5), b.Square(z)))
	g = b.Div(g, b.Reshape(b.Sum(g, 1), backend.Shape{1, 1}))
	return b.Reshape(g, s)
}

// GetConfig returns Keras's config.
func (l *RandomGaussianBlur) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	s, err := factorRange(l.Sigma, l.SigmaRange, 0, 1)
	if err != nil {
		return nil, err
	}
	k := l.kernelSize()
	vr := colorRange(l.ValueRange)
	return serialization.Config{"factor": f[:], "kernel_size": k[:], "sigma": s[:], "value_range": vr[:], "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomGaussianBlur takes images of any size.
func (*RandomGaussianBlur) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomGaussianBlur with training=True by default.
func (*RandomGaussianBlur) trainsByDefault() {}

func init() {
	mustRegister("RandomGaussianBlur", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		s, spair := readFactorOr(r, "sigma", 1)
		l := &RandomGaussianBlur{Factor: f, FactorRange: pair, Sigma: s, SigmaRange: spair, ValueRange: sortedValueRange(r)}
		if v, ok := r.Value("kernel_size"); ok {
			if n, isNum := v.(float64); isNum {
				l.KernelSize = [2]int{int(n), int(n)}
			} else if ks := r.Ints("kernel_size"); len(ks) == 2 {
				l.KernelSize = [2]int{ks[0], ks[1]}
			} else {
				r.Fail("kernel_size", "want an odd number or a pair of odd numbers, got %v", v)
			}
		}
		r.Ignore("seed") // decides only which images and sigmas training draws
		expectChannelsLast(r)
		return l, nil
	})
}
