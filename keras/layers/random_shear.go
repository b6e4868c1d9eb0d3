package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomShear shears each image during training, like
// keras.layers.RandomShear: output pixel (y, x) reads the input at (y +
// sy·x, x + sx·y), with sx and sy drawn per image from XFactor's and
// YFactor's ranges and one random sign per image for both. Pixels that
// come from outside the image are filled by FillMode. Outside training
// it passes its input through.
//
// A single factor f gives the range (-f, f); a pair is used as it is,
// each end in [0, 1] (Keras's check), and the sign still flips it.
type RandomShear struct {
	XFactor      float64    // in [0, 1]
	XFactorRange [2]float64 // (lower, upper) instead of XFactor, each in [0, 1]
	YFactor      float64    // in [0, 1]
	YFactorRange [2]float64 // (lower, upper) instead of YFactor, each in [0, 1]
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

// ClassName returns "RandomShear".
func (*RandomShear) ClassName() string { return "RandomShear" }

// shearFactor is Keras's RandomShear._set_factor_with_name: a number f
// gives (-f, f), a pair itself sorted; every number in [0, 1].
func shearFactor(name string, f float64, pair [2]float64) ([2]float64, error) {
	bad := func() ([2]float64, error) {
		return [2]float64{}, fmt.Errorf("%s must be a number or a pair of numbers in [0, 1], got %v", name, describeFactor(f, pair))
	}
	if pair != ([2]float64{}) {
		for _, v := range pair {
			if v < 0 || v > 1 || math.IsNaN(v) {
				return bad()
			}
		}
		return [2]float64{min(pair[0], pair[1]), max(pair[0], pair[1])}, nil
	}
	if f < 0 || f > 1 || math.IsNaN(f) {
		return bad()
	}
	return [2]float64{-f, f}, nil
}

func (l *RandomShear) factors() (x, y [2]float64, err error) {
	if x, err = shearFactor("x_factor", l.XFactor, l.XFactorRange); err != nil {
		return
	}
	y, err = shearFactor("y_factor", l.YFactor, l.YFactorRange)
	return
}

// Build checks the settings; the shape is unchanged.
func (l *RandomShear) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, _, err := l.factors(); err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return in.Clone(), checkTransformModes(set.interpolation, set.fillMode)
}

// Call shears in training.
func (l *RandomShear) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes; the shapes are unchanged.
func (l *RandomShear) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData shears the images and their boxes, in training. The
// boxes move as Keras's _shear_bboxes moves them: in rel_xyxy fractions,
// each corner shifted by the shear times the other fraction (exact for
// square images), then clipped (a box left with no area gets label -1).
func (l *RandomShear) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b, n := ctx.B, x.Shape()[0]
	fx, fy, _ := l.factors()
	// Keras: the sign is -1 where a uniform draw is above 0.5.
	sign := b.Sub(b.Scalar(1), b.Mul(b.Scalar(2), b.Greater(b.RandomUniform(backend.Shape{n, 1, 1}), b.Scalar(0.5))))
	sy := b.Mul(uniformPerImage(b, n, fy[0], fy[1]), sign)
	sx := b.Mul(uniformPerImage(b, n, fx[0], fx[1]), sign)
	one, zero := coefficient(b, n, 1), coefficient(b, n, 0)
	m := affineMap{a0: one, a1: sx, a2: zero, b0: sy, b1: one, b2: zero}
	set := settingsOf(l.FillMode, l.Interpolation)
	d.Images = affineTransform(b, x, m, set.interpolation, set.fillMode, l.FillValue)
	d = withMasks(d, func(v backend.Value) backend.Value {
		return affineTransform(b, v, m, "nearest", set.fillMode, l.FillValue)
	})
	if d.Boxes == nil {
		return d
	}
	size, format := imageSize(x.Shape()), boundingboxes.Format(l.BoundingBoxFormat)
	p := ops.Split(b, boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.RelXYXY, size), 4, -1)
	x1, y1, x2, y2 := p[0], p[1], p[2], p[3]
	left := ops.Less(b, sx, b.Scalar(0))
	x1, x2 = ops.Where(b, left, b.Sub(x1, b.Mul(sx, y1)), b.Sub(x1, b.Mul(sx, y2))),
		ops.Where(b, left, b.Sub(x2, b.Mul(sx, y2)), b.Sub(x2, b.Mul(sx, y1)))
	down := b.Greater(sy, b.Scalar(0))
	y1, y2 = ops.Where(b, down, b.Sub(y1, b.Mul(sy, x2)), b.Sub(y1, b.Mul(sy, x1))),
		ops.Where(b, down, b.Sub(y2, b.Mul(sy, x1)), b.Sub(y2, b.Mul(sy, x2)))
	var rel backend.Value
	rel, d.BoxLabels = boundingboxes.ClipToImageSize(b, ops.Concatenate(b, []backend.Value{x1, y1, x2, y2}, -1), d.BoxLabels, nil, boundingboxes.RelXYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, rel, boundingboxes.RelXYXY, format, size)
	return d
}

// GetConfig returns Keras's config.
func (l *RandomShear) GetConfig() (serialization.Config, error) {
	if _, _, err := l.factors(); err != nil {
		return nil, err
	}
	// Keras writes a single factor f as the pair (-f, f), which its own
	// from_config then refuses (a pair's ends must be in [0, 1]); kerasgo
	// writes the number, which Keras reads as (-f, f).
	set := settingsOf(l.FillMode, l.Interpolation)
	return serialization.Config{"x_factor": factorConfig(l.XFactor, l.XFactorRange), "y_factor": factorConfig(l.YFactor, l.YFactorRange), "fill_mode": set.fillMode, "fill_value": l.FillValue,
		"interpolation": set.interpolation, "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomShear takes images of any size.
func (*RandomShear) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomShear with training=True by default.
func (*RandomShear) trainsByDefault() {}

func init() {
	mustRegister("RandomShear", func(r *serialization.Reader) (Layer, error) {
		xf, xpair := readShearFactor(r, "x_factor")
		yf, ypair := readShearFactor(r, "y_factor")
		l := &RandomShear{XFactor: xf, XFactorRange: xpair, YFactor: yf, YFactorRange: ypair, FillMode: r.String("fill_mode", "reflect"),
			FillValue: r.Float("fill_value", 0), Interpolation: r.String("interpolation", "bilinear")}
		r.Ignore("seed") // decides only which shears training draws
		expectChannelsLast(r)
		return l, nil
	})
}

// readShearFactor reads a RandomShear factor; the pair (-f, f) that
// Keras writes for a single factor f reads as f.
func readShearFactor(r *serialization.Reader, key string) (float64, [2]float64) {
	f, pair, _ := readFactor(r, key)
	if pair[0] == -pair[1] && pair[1] >= 0 {
		return pair[1], [2]float64{}
	}
	return f, pair
}
