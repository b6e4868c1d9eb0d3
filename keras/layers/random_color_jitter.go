package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomColorJitter changes brightness, contrast, saturation and hue in
// turn during training, like keras.layers.RandomColorJitter: each factor
// that is set applies RandomBrightness, RandomContrast, RandomSaturation
// and RandomHue, in that order, with the layer's ValueRange. Outside
// training it passes its input through.
type RandomColorJitter struct {
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// Each factor, when not nil, is the factor of the matching layer
	// (its number or its pair, read as that layer reads it).
	Brightness, Contrast, Saturation, Hue *JitterFactor
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// JitterFactor is one of RandomColorJitter's factors: a number (Value),
// or a (lower, upper) pair (Range, when it is not zero).
type JitterFactor struct {
	Value float64
	Range [2]float64
}

func (f *JitterFactor) config() any {
	if f == nil {
		return nil
	}
	return factorConfig(f.Value, f.Range)
}

// ClassName returns "RandomColorJitter".
func (*RandomColorJitter) ClassName() string { return "RandomColorJitter" }

// parts are the layers the jitter applies, in Keras's order.
func (l *RandomColorJitter) parts() []Layer {
	var ps []Layer
	if f := l.Brightness; f != nil {
		ps = append(ps, &RandomBrightness{Factor: f.Value, FactorRange: f.Range, ValueRange: l.ValueRange})
	}
	if f := l.Contrast; f != nil {
		ps = append(ps, &RandomContrast{Factor: f.Value, FactorRange: f.Range, ValueRange: l.ValueRange})
	}
	if f := l.Saturation; f != nil {
		ps = append(ps, &RandomSaturation{Factor: f.Value, FactorRange: f.Range, ValueRange: l.ValueRange})
	}
	if f := l.Hue; f != nil {
		ps = append(ps, &RandomHue{Factor: f.Value, FactorRange: f.Range, ValueRange: l.ValueRange})
	}
	return ps
}

// Build checks every factor that is set; the shape is unchanged.
func (l *RandomColorJitter) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	for _, p := range l.parts() {
		if _, err := p.Build(inputs); err != nil {
			return nil, fmt.Errorf("%s: %w", p.ClassName(), err)
		}
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call applies the set factors' layers in training.
func (l *RandomColorJitter) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	for _, p := range l.parts() {
		x = p.Call(ctx, []backend.Value{x})
	}
	return x
}

// GetConfig returns Keras's config.
func (l *RandomColorJitter) GetConfig() (serialization.Config, error) {
	vr := givenRange(l.ValueRange)
	return serialization.Config{
		"value_range": vr[:], "brightness_factor": l.Brightness.config(), "contrast_factor": l.Contrast.config(),
		"saturation_factor": l.Saturation.config(), "hue_factor": l.Hue.config(), "seed": nil, "data_format": "channels_last",
	}, nil
}

// takesUnknownDims: RandomColorJitter takes images of any size.
func (*RandomColorJitter) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomColorJitter with training=True by default.
func (*RandomColorJitter) trainsByDefault() {}

func init() {
	mustRegister("RandomColorJitter", func(r *serialization.Reader) (Layer, error) {
		factor := func(key string) *JitterFactor {
			if v, ok := r.Value(key); !ok || v == nil {
				return nil
			}
			f, pair, _ := readFactor(r, key)
			return &JitterFactor{Value: f, Range: pair}
		}
		l := &RandomColorJitter{
			ValueRange: readValueRange(r, [2]float64{0, 255}),
			Brightness: factor("brightness_factor"), Contrast: factor("contrast_factor"),
			Saturation: factor("saturation_factor"), Hue: factor("hue_factor"),
		}
		r.Ignore("seed") // decides only which factors training draws
		expectChannelsLast(r)
		return l, nil
	})
}
