package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Solarization inverts the pixels above a threshold during training,
// like keras.layers.Solarization: the values are mapped from ValueRange
// to [0, 255], an addition is added and the result clipped to [0, 255],
// each value at or above the threshold becomes 255 minus itself, and the
// result is mapped back. The addition and the threshold are drawn per
// image, from [lower, 255·upper) of AdditionFactor and ThresholdFactor
// (Keras scales only the upper end). Outside training it passes its
// input through.
//
// A single factor f gives the range (0, f); the zero values, Keras's
// defaults, give a threshold of 0, so every pixel is inverted.
type Solarization struct {
	AdditionFactor       float64    // in [0, 1]
	AdditionFactorRange  [2]float64 // (lower, upper) instead of AdditionFactor, each in [0, 1]
	ThresholdFactor      float64    // in [0, 1]
	ThresholdFactorRange [2]float64 // (lower, upper) instead of ThresholdFactor, each in [0, 1]
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "Solarization".
func (*Solarization) ClassName() string { return "Solarization" }

// solarizationFactor is Keras's Solarization._set_factor: a number f
// gives (0, f), a pair itself sorted, each in [0, 1].
func solarizationFactor(name string, f float64, pair [2]float64) ([2]float64, error) {
	r := [2]float64{0, f}
	if pair != ([2]float64{}) {
		r = [2]float64{min(pair[0], pair[1]), max(pair[0], pair[1])}
	}
	for _, v := range r {
		if v < 0 || v > 1 || math.IsNaN(v) {
			return r, fmt.Errorf("%s must be a number or a pair of numbers in [0, 1], got %v", name, describeFactor(f, pair))
		}
	}
	return r, nil
}

func (l *Solarization) factors() (add, threshold [2]float64, err error) {
	if add, err = solarizationFactor("addition_factor", l.AdditionFactor, l.AdditionFactorRange); err != nil {
		return
	}
	threshold, err = solarizationFactor("threshold_factor", l.ThresholdFactor, l.ThresholdFactorRange)
	return
}

// Build checks the settings; the shape is unchanged.
func (l *Solarization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, _, err := l.factors(); err != nil {
		return nil, err
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call solarizes in training.
func (l *Solarization) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	add, threshold, _ := l.factors()
	vr := colorRange(l.ValueRange)
	full := [2]float64{0, 255}
	y := clip(b, b.Add(toValueRange(b, x, vr, full), perImage(b, x, add[0], add[1]*255)), 0, 255)
	y = ops.Where(b, b.Greater(perImage(b, x, threshold[0], threshold[1]*255), y), y, b.Sub(b.Scalar(255), y))
	return toValueRange(b, y, full, vr)
}

// GetConfig returns Keras's config.
func (l *Solarization) GetConfig() (serialization.Config, error) {
	add, threshold, err := l.factors()
	if err != nil {
		return nil, err
	}
	vr := colorRange(l.ValueRange)
	return serialization.Config{"addition_factor": add[:], "threshold_factor": threshold[:], "value_range": vr[:], "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: Solarization takes images of any size.
func (*Solarization) takesUnknownDims() {}

// trainsByDefault: Keras calls Solarization with training=True by default.
func (*Solarization) trainsByDefault() {}

func init() {
	mustRegister("Solarization", func(r *serialization.Reader) (Layer, error) {
		af, apair, _ := readFactor(r, "addition_factor")
		tf, tpair, _ := readFactor(r, "threshold_factor")
		l := &Solarization{AdditionFactor: af, AdditionFactorRange: apair, ThresholdFactor: tf, ThresholdFactorRange: tpair, ValueRange: sortedValueRange(r)}
		r.Ignore("seed") // decides only which additions and thresholds training draws
		expectChannelsLast(r)
		return l, nil
	})
}
