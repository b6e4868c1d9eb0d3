package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomElasticTransform distorts some images by a smooth random
// displacement field during training, like
// keras.layers.RandomElasticTransform: an image is distorted with a
// probability drawn per image from the factor's range, by
// ops.ElasticTransform with alpha = max(H, W)·0.1·s and sigma =
// min(H, W)·0.05·s for s drawn per batch from the scale's range, and the
// batch is clipped to ValueRange. Outside training it passes its input
// through.
//
// A single Factor f gives the range (0, f), a single Scale s the range
// (0, s); Keras's defaults are 1 for both, which the zero values are
// not: set them. Keras sizes the smoothing kernel from the drawn sigma
// (int(6σ) | 1); a compiled step fixes it, so kerasgo uses the size for
// the largest sigma the scale's range gives, whose outer taps are small
// (the same kernel as Keras's when the range is one value). The two
// axes' displacements are drawn apart (see ops.ElasticTransform).
type RandomElasticTransform struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	Scale       float64    // in [0, 1]
	ScaleRange  [2]float64 // (lower, upper) instead of Scale, each in [0, 1]
	// Interpolation is "bilinear" (the default when empty) or "nearest".
	Interpolation string
	// FillMode is "reflect" (the default when empty), "constant"
	// (FillValue), "nearest", "wrap" or "mirror".
	FillMode  string
	FillValue float64
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomElasticTransform".
func (*RandomElasticTransform) ClassName() string { return "RandomElasticTransform" }

func (l *RandomElasticTransform) options() ops.ElasticTransformOptions {
	o := ops.ElasticTransformOptions{Interpolation: l.Interpolation, FillMode: l.FillMode, FillValue: l.FillValue}
	if o.Interpolation == "" {
		o.Interpolation = "bilinear"
	}
	if o.FillMode == "" {
		o.FillMode = "reflect"
	}
	return o
}

func (l *RandomElasticTransform) ranges() (f, s [2]float64, err error) {
	if f, err = factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return
	}
	if s, err = factorRange(l.Scale, l.ScaleRange, 0, 1); err != nil {
		err = fmt.Errorf("scale: %w", err)
	}
	return
}

// Build checks the settings; the shape is unchanged.
func (l *RandomElasticTransform) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, _, err := l.ranges(); err != nil {
		return nil, err
	}
	if err := checkImages(in); err != nil {
		return nil, err
	}
	o := l.options()
	if err := ops.CheckAffineTransformModes(o.Interpolation, o.FillMode); err != nil {
		return nil, err
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call distorts the chosen images in training.
func (l *RandomElasticTransform) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	f, sc, _ := l.ranges()
	if !ctx.Training || f[1] == 0 || sc[1] == 0 {
		return x
	}
	b, s := ctx.B, x.Shape()
	h, w := float64(s[1]), float64(s[2])
	drawn := b.Add(b.Mul(b.RandomUniform(backend.Shape{1}), b.Scalar(sc[1]-sc[0])), b.Scalar(sc[0]))
	alpha := b.Mul(drawn, b.Scalar(max(h, w)*0.1))
	sigma := b.Maximum(b.Mul(drawn, b.Scalar(min(h, w)*0.05)), b.Scalar(1e-6))
	k := ops.ElasticKernelSize(min(h, w) * 0.05 * sc[1])
	distorted := ops.ElasticTransformBy(b, x, alpha, sigma, k, l.options())
	vr := givenRange(l.ValueRange)
	return clip(b, ops.Where(b, coin(b, x, f[0], f[1]), distorted, x), vr[0], vr[1])
}

// GetConfig returns Keras's config.
func (l *RandomElasticTransform) GetConfig() (serialization.Config, error) {
	f, sc, err := l.ranges()
	if err != nil {
		return nil, err
	}
	o := l.options()
	return serialization.Config{"factor": f[:], "scale": sc[:], "interpolation": o.Interpolation, "fill_mode": o.FillMode,
		"fill_value": l.FillValue, "value_range": givenRange(l.ValueRange), "seed": nil, "data_format": "channels_last"}, nil
}

// trainsByDefault: Keras calls RandomElasticTransform with training=True by default.
func (*RandomElasticTransform) trainsByDefault() {}

func init() {
	mustRegister("RandomElasticTransform", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		s, spair := readFactorOr(r, "scale", 1)
		l := &RandomElasticTransform{Factor: f, FactorRange: pair, Scale: s, ScaleRange: spair, Interpolation: r.String("interpolation", "bilinear"),
			FillMode: r.String("fill_mode", "reflect"), FillValue: r.Float("fill_value", 0), ValueRange: readValueRange(r, [2]float64{0, 255})}
		r.Ignore("seed") // decides only which distortions training draws
		expectChannelsLast(r)
		return l, nil
	})
}
