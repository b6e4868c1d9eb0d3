package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomErasing fills a random rectangle of some images during training,
// like keras.layers.RandomErasing: an image is erased with a probability
// drawn per image from the factor's range; its rectangle's width and
// height are sqrt(s)·W and sqrt(s')·H with s and s' drawn from the
// scale's range, placed uniformly; the rectangle takes FillValue, or,
// when FillValue is nil, normal noise times ValueRange's high end, as
// Keras's default does; fills are clipped to ValueRange. Outside training
// it passes its input through.
//
// A single Factor f gives the range (0, f); Keras's default is 1, which
// the zero value is not: set it.
type RandomErasing struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	// Scale s gives the area range (0, s); ScaleRange (lower, upper)
	// instead; both zero mean Keras's default (0.02, 0.33).
	Scale      float64
	ScaleRange [2]float64
	// FillValue is one number, or one per channel; nil means Keras's
	// random fill.
	FillValue []float64
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomErasing".
func (*RandomErasing) ClassName() string { return "RandomErasing" }

func (l *RandomErasing) scale() ([2]float64, error) {
	if l.Scale == 0 && l.ScaleRange == ([2]float64{}) {
		return [2]float64{0.02, 0.33}, nil
	}
	s, err := factorRange(l.Scale, l.ScaleRange, 0, 1)
	if err != nil {
		return s, fmt.Errorf("scale: %w", err)
	}
	return s, nil
}

// Build checks the settings; the shape is unchanged.
func (l *RandomErasing) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return nil, err
	}
	if _, err := l.scale(); err != nil {
		return nil, err
	}
	if n := len(l.FillValue); n > 1 && n != in[3] {
		return nil, fmt.Errorf("fill_value has %d numbers: give one, or one per channel (%d)", n, in[3])
	}
	if in[1] < 1 || in[2] < 1 {
		return nil, fmt.Errorf("images %v need a known height and width", in)
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call erases the chosen rectangles in training.
func (l *RandomErasing) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b, s := ctx.B, x.Shape()
	sc, _ := l.scale()
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	rect := boxMask(b, s, b.Sqrt(perImage(b, x, sc[0], sc[1])), b.Sqrt(perImage(b, x, sc[0], sc[1])))
	vr := givenRange(l.ValueRange)
	var fill backend.Value
	switch len(l.FillValue) {
	case 0:
		fill = b.Mul(b.RandomNormal(s), b.Scalar(vr[1]))
	case 1:
		fill = b.Scalar(l.FillValue[0])
	default:
		fill = b.Constant(l.FillValue, backend.Shape{1, 1, 1, s[3]})
	}
	fill = clip(b, fill, vr[0], vr[1])
	return ops.Where(b, b.Mul(coin(b, x, f[0], f[1]), rect), fill, x)
}

// boxMask is 1 inside one rectangle per image of a batch of shape s and
// 0 elsewhere, shaped (batch, height, width, 1): its width and height are
// the fractions fw and fh (batch, 1, 1, 1) of the image's, and its corner
// is placed uniformly, as Keras's RandomErasing and CutMix draw theirs
// (_compute_crop_bounds, _generate_batch_mask).
func boxMask(b backend.Builder, s backend.Shape, fw, fh backend.Value) backend.Value {
	along := func(length int, frac backend.Value, grid backend.Shape) backend.Value {
		size := b.Mul(frac, b.Scalar(float64(length)))
		start := b.Mul(b.RandomUniform(backend.Shape{s[0], 1, 1, 1}), b.Sub(b.Scalar(float64(length)), size))
		pos := make([]float64, length)
		for i := range pos {
			pos[i] = float64(i)
		}
		p := b.Constant(pos, grid)
		return b.Mul(ops.GreaterEqual(b, p, start), b.Greater(b.Add(start, size), p))
	}
	return b.Mul(along(s[2], fw, backend.Shape{1, 1, s[2], 1}), along(s[1], fh, backend.Shape{1, s[1], 1, 1}))
}

// GetConfig returns Keras's config.
func (l *RandomErasing) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	sc, err := l.scale()
	if err != nil {
		return nil, err
	}
	var fill any
	switch len(l.FillValue) {
	case 0:
	case 1:
		fill = l.FillValue[0]
	default:
		fill = l.FillValue
	}
	return serialization.Config{"factor": f[:], "scale": sc[:], "fill_value": fill, "value_range": givenRange(l.ValueRange), "seed": nil, "data_format": "channels_last"}, nil
}

// trainsByDefault: Keras calls RandomErasing with training=True by default.
func (*RandomErasing) trainsByDefault() {}

func init() {
	mustRegister("RandomErasing", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		l := &RandomErasing{Factor: f, FactorRange: pair, ValueRange: readValueRange(r, [2]float64{0, 255})}
		if _, given := r.Value("scale"); given {
			l.Scale, l.ScaleRange, _ = readFactor(r, "scale")
		}
		if v, ok := r.Value("fill_value"); ok && v != nil {
			if n, isNum := v.(float64); isNum {
				l.FillValue = []float64{n}
			} else {
				l.FillValue = r.Floats("fill_value")
			}
		}
		r.Ignore("seed") // decides only which rectangles training erases
		expectChannelsLast(r)
		return l, nil
	})
}
