package layers

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomRotation turns each image about its centre by a random angle
// during training, like keras.layers.RandomRotation: Factor f draws the
// angle from [-f, f] turns (f = 0.1 is up to 36 degrees either way), and
// FactorRange (lower, upper) from [lower, upper] turns. Pixels that come
// from outside the image are filled by FillMode. Outside training it
// passes its input through.
//
// Given bounding boxes (keras.ImageAugmenter, ApplyImageData), it turns
// each box's corners with its image and takes their bounding box, clipped
// to the image, as Keras does (a box left with no area gets label -1).
// Keras's RandomRotation reads the boxes as xyxy whatever its
// bounding_box_format; kerasgo converts them from the format first (the
// same for xyxy boxes).
type RandomRotation struct {
	Factor      float64    // in [-1, 1], a fraction of a full turn
	FactorRange [2]float64 // (lower, upper) instead of Factor
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

// ClassName returns "RandomRotation".
func (*RandomRotation) ClassName() string { return "RandomRotation" }

// Build checks the settings; the shape is unchanged.
func (l *RandomRotation) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, -1, 1); err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return in.Clone(), checkTransformModes(set.interpolation, set.fillMode)
}

// Call rotates in training.
func (l *RandomRotation) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes; the shapes are unchanged.
func (l *RandomRotation) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData rotates the images and their boxes, in training.
func (l *RandomRotation) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b, s := ctx.B, x.Shape()
	f, _ := factorRange(l.Factor, l.FactorRange, -1, 1)
	theta := uniformPerImage(b, s[0], f[0]*fullTurn, f[1]*fullTurn)
	set := settingsOf(l.FillMode, l.Interpolation)
	turned := rotation(b, theta, s[1], s[2])
	d.Images = affineTransform(b, x, turned, set.interpolation, set.fillMode, l.FillValue)
	d = withMasks(d, func(v backend.Value) backend.Value {
		return affineTransform(b, v, turned, "nearest", set.fillMode, l.FillValue)
	})
	if d.Boxes == nil {
		return d
	}
	size, format := imageSize(s), boundingboxes.Format(l.BoundingBoxFormat)
	n := s[0]
	zeros, ones := b.Constant(filledWith(0, n), backend.Shape{n}), b.Constant(filledWith(1, n), backend.Shape{n})
	turn := boundingboxes.Affine{Angle: b.Mul(b.Reshape(theta, backend.Shape{n}), b.Scalar(180/math.Pi)),
		TranslateX: zeros, TranslateY: zeros, Scale: ones, ShearX: zeros, ShearY: zeros}
	boxes := boundingboxes.AffineTransform(b, boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, size), turn, *size, boundingboxes.XYXY)
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, size, boundingboxes.XYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.XYXY, format, size)
	return d
}

// GetConfig returns Keras's config.
func (l *RandomRotation) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, -1, 1)
	if err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return serialization.Config{"factor": f[:], "fill_mode": set.fillMode, "fill_value": l.FillValue,
		"interpolation": set.interpolation, "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomRotation takes images of any size.
func (*RandomRotation) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomRotation with training=True by default.
func (*RandomRotation) trainsByDefault() {}

func init() {
	mustRegister("RandomRotation", func(r *serialization.Reader) (Layer, error) {
		f, pair, given := readFactor(r, "factor")
		if !given {
			r.Fail("factor", "is required")
		}
		l := &RandomRotation{Factor: f, FactorRange: pair, FillMode: r.String("fill_mode", "reflect"),
			FillValue: r.Float("fill_value", 0), Interpolation: r.String("interpolation", "bilinear")}
		r.Ignore("seed") // decides only which angles training draws
		expectChannelsLast(r)
		return l, nil
	})
}
