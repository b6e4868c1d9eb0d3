package layers

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomPosterization keeps only the top bits of each pixel during
// training, like keras.layers.RandomPosterization: the values are mapped
// from ValueRange to [0, 255], floored to a multiple of 2^(8-bits), and
// mapped back, with bits drawn per image. Outside training it passes its
// input through.
//
// As in Keras, bits are drawn with randint from [lower, upper), which
// leaves out the upper end, so a single Factor b gives 1 to b-1 bits (its
// range is (1, b)); give FactorRange {b, b} for exactly b bits.
type RandomPosterization struct {
	Factor      int    // the number of bits, in [1, 8]
	FactorRange [2]int // (lower, upper) instead of Factor, each in [1, 8]
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomPosterization".
func (*RandomPosterization) ClassName() string { return "RandomPosterization" }

func (l *RandomPosterization) bits() ([2]float64, error) {
	return factorRange(float64(l.Factor), [2]float64{float64(l.FactorRange[0]), float64(l.FactorRange[1])}, 1, 8)
}

// Build checks the settings; the shape is unchanged.
func (l *RandomPosterization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := l.bits(); err != nil {
		return nil, err
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call posterizes in training.
func (l *RandomPosterization) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := l.bits()
	bits := b.Scalar(f[0])
	if f[0] != f[1] {
		bits = b.Floor(perImage(b, x, f[0], f[1]))
	}
	// step = 2^(8 - bits), exact after rounding.
	step := ops.Round(b, b.Exp(b.Mul(b.Sub(b.Scalar(8), bits), b.Scalar(math.Ln2))), 0)
	vr := colorRange(l.ValueRange)
	y := toValueRange(b, x, vr, [2]float64{0, 255})
	y = b.Mul(b.Floor(b.Div(b.Floor(y), step)), step)
	return toValueRange(b, y, [2]float64{0, 255}, vr)
}

// GetConfig returns Keras's config.
func (l *RandomPosterization) GetConfig() (serialization.Config, error) {
	f, err := l.bits()
	if err != nil {
		return nil, err
	}
	vr := colorRange(l.ValueRange)
	return serialization.Config{"factor": []int{int(f[0]), int(f[1])}, "value_range": vr[:], "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomPosterization takes images of any size.
func (*RandomPosterization) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomPosterization with training=True by default.
func (*RandomPosterization) trainsByDefault() {}

func init() {
	mustRegister("RandomPosterization", func(r *serialization.Reader) (Layer, error) {
		f, pair, given := readFactor(r, "factor")
		if !given {
			r.Fail("factor", "is required")
		}
		whole := func(v float64) int {
			if v != math.Trunc(v) {
				r.Fail("factor", "want a whole number of bits, got %v", v)
			}
			return int(v)
		}
		l := &RandomPosterization{Factor: whole(f), FactorRange: [2]int{whole(pair[0]), whole(pair[1])}, ValueRange: sortedValueRange(r)}
		r.Ignore("seed") // decides only which bits training keeps
		expectChannelsLast(r)
		return l, nil
	})
}
