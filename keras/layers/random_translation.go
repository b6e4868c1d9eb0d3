package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomTranslation shifts each image by a random amount during
// training, like keras.layers.RandomTranslation: down by a fraction of
// its height drawn from [-f, f] for HeightFactor f (or from HeightRange),
// right by a fraction of its width from WidthFactor (or WidthRange).
// Pixels that come from outside the image are filled by FillMode.
// Outside training it passes its input through.
//
// Given bounding boxes (keras.ImageAugmenter, ApplyImageData), it shifts
// them with their image and clips them to it, as Keras does (a box left
// with no area gets label -1).
type RandomTranslation struct {
	HeightFactor float64    // in [-1, 1]
	HeightRange  [2]float64 // (lower, upper) instead of HeightFactor
	WidthFactor  float64    // in [-1, 1]
	WidthRange   [2]float64 // (lower, upper) instead of WidthFactor
	// FillMode is "reflect" (the default when empty), "wrap", "constant"
	// (FillValue) or "nearest".
	FillMode  string
	FillValue float64
	// Interpolation is "bilinear" (the default when empty) or "nearest".
	Interpolation string
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomTranslation".
func (*RandomTranslation) ClassName() string { return "RandomTranslation" }

// translationRange is Keras's RandomTranslation._set_factor: a number f
// gives (-f, f), a pair itself sorted; each value must be in [-1, 1].
func translationRange(f float64, pair [2]float64, what string) ([2]float64, error) {
	r, err := factorRange(f, pair, -1, 1)
	if err != nil {
		return r, fmt.Errorf("%s: %w", what, err)
	}
	return r, nil
}

// Build checks the settings; the shape is unchanged.
func (l *RandomTranslation) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := translationRange(l.HeightFactor, l.HeightRange, "height factor"); err != nil {
		return nil, err
	}
	if _, err := translationRange(l.WidthFactor, l.WidthRange, "width factor"); err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return in.Clone(), checkTransformModes(set.interpolation, set.fillMode)
}

// Call translates in training: Keras's translation matrix.
func (l *RandomTranslation) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes; the shapes are unchanged.
func (l *RandomTranslation) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData translates the images and their boxes, in training.
func (l *RandomTranslation) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b, s := ctx.B, x.Shape()
	hr, _ := translationRange(l.HeightFactor, l.HeightRange, "")
	wr, _ := translationRange(l.WidthFactor, l.WidthRange, "")
	ty := b.Mul(uniformPerImage(b, s[0], hr[0], hr[1]), b.Scalar(float64(s[1])))
	tx := b.Mul(uniformPerImage(b, s[0], wr[0], wr[1]), b.Scalar(float64(s[2])))
	zero, one := coefficient(b, s[0], 0), coefficient(b, s[0], 1)
	m := affineMap{a0: one, a1: zero, a2: b.Neg(tx), b0: zero, b1: one, b2: b.Neg(ty)}
	set := settingsOf(l.FillMode, l.Interpolation)
	d.Images = affineTransform(b, x, m, set.interpolation, set.fillMode, l.FillValue)
	d = withMasks(d, func(v backend.Value) backend.Value {
		return affineTransform(b, v, m, "nearest", set.fillMode, l.FillValue)
	})
	if d.Boxes == nil {
		return d
	}
	size, format := imageSize(s), boundingboxes.Format(l.BoundingBoxFormat)
	p := ops.Split(b, boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, size), 4, -1)
	boxes := ops.Concatenate(b, []backend.Value{b.Add(p[0], tx), b.Add(p[1], ty), b.Add(p[2], tx), b.Add(p[3], ty)}, -1)
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, size, boundingboxes.XYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.XYXY, format, size)
	return d
}

// GetConfig returns Keras's config.
func (l *RandomTranslation) GetConfig() (serialization.Config, error) {
	set := settingsOf(l.FillMode, l.Interpolation)
	return serialization.Config{"height_factor": factorConfig(l.HeightFactor, l.HeightRange), "width_factor": factorConfig(l.WidthFactor, l.WidthRange),
		"fill_mode": set.fillMode, "fill_value": l.FillValue, "interpolation": set.interpolation, "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomTranslation takes images of any size.
func (*RandomTranslation) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomTranslation with training=True by default.
func (*RandomTranslation) trainsByDefault() {}

func init() {
	mustRegister("RandomTranslation", func(r *serialization.Reader) (Layer, error) {
		hf, hr, hGiven := readFactor(r, "height_factor")
		wf, wr, wGiven := readFactor(r, "width_factor")
		if !hGiven || !wGiven {
			r.Fail("height_factor", "height_factor and width_factor are required")
		}
		l := &RandomTranslation{HeightFactor: hf, HeightRange: hr, WidthFactor: wf, WidthRange: wr,
			FillMode: r.String("fill_mode", "reflect"), FillValue: r.Float("fill_value", 0), Interpolation: r.String("interpolation", "bilinear")}
		r.Ignore("seed") // decides only which shifts training draws
		expectChannelsLast(r)
		return l, nil
	})
}
