package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomZoom zooms each image about its centre by a random amount during
// training, like keras.layers.RandomZoom: the height is scaled by a zoom
// drawn from [1 + lower, 1 + upper], where HeightFactor f gives (lower,
// upper) = (-f, f) and HeightRange gives them directly. As in Keras, a
// positive zoom shows more of the image (zooms out) and a negative one
// zooms in. The width zooms by the same draw, keeping the aspect ratio,
// unless WidthFactor or WidthRange gives it its own range. Pixels that
// come from outside the image are filled by FillMode. Outside training
// it passes its input through.
type RandomZoom struct {
	HeightFactor float64    // in (-1, 1]
	HeightRange  [2]float64 // (lower, upper) instead of HeightFactor, each in (-1, 1]
	WidthFactor  float64    // as HeightFactor; zero (with WidthRange zero): the height's draw
	WidthRange   [2]float64
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

	// widthGiven: a config set width_factor, possibly to 0.
	widthGiven bool
}

// ClassName returns "RandomZoom".
func (*RandomZoom) ClassName() string { return "RandomZoom" }

func (l *RandomZoom) ownWidth() bool {
	return l.widthGiven || l.WidthFactor != 0 || l.WidthRange != ([2]float64{})
}

// zoomRange is Keras's RandomZoom._set_factor: a number f gives (-f, f),
// a pair itself sorted; each value must be in (-1, 1].
func zoomRange(f float64, pair [2]float64, what string) ([2]float64, error) {
	values := []float64{f}
	if pair != ([2]float64{}) {
		values = pair[:]
	}
	for _, v := range values {
		if !(v > -1 && v <= 1) {
			return [2]float64{}, fmt.Errorf("%s must be a number or a pair of numbers in (-1, 1], got %v", what, describeFactor(f, pair))
		}
	}
	if pair != ([2]float64{}) {
		return [2]float64{min(pair[0], pair[1]), max(pair[0], pair[1])}, nil
	}
	if f < 0 {
		f = -f
	}
	return [2]float64{-f, f}, nil
}

// Build checks the settings; the shape is unchanged.
func (l *RandomZoom) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := zoomRange(l.HeightFactor, l.HeightRange, "height factor"); err != nil {
		return nil, err
	}
	if _, err := zoomRange(l.WidthFactor, l.WidthRange, "width factor"); err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return in.Clone(), checkTransformModes(set.interpolation, set.fillMode)
}

// Call zooms in training: Keras's zoom matrix.
func (l *RandomZoom) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes; the shapes are unchanged.
func (l *RandomZoom) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData zooms the images and their boxes, in training: as
// Keras's transform_bounding_boxes, each box is clipped to the part of
// the image the zoom keeps, then scaled with it (a box left with no area
// gets label -1).
func (l *RandomZoom) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b, s := ctx.B, x.Shape()
	hr, _ := zoomRange(l.HeightFactor, l.HeightRange, "")
	zy := uniformPerImage(b, s[0], 1+hr[0], 1+hr[1])
	zx := zy
	if l.ownWidth() {
		wr, _ := zoomRange(l.WidthFactor, l.WidthRange, "")
		zx = uniformPerImage(b, s[0], 1+wr[0], 1+wr[1])
	}
	zero := coefficient(b, s[0], 0)
	one := b.Scalar(1)
	m := affineMap{a0: zx, a1: zero, b0: zero, b1: zy,
		a2: b.Mul(b.Scalar(float64(s[2]-1)/2), b.Sub(one, zx)),
		b2: b.Mul(b.Scalar(float64(s[1]-1)/2), b.Sub(one, zy))}
	set := settingsOf(l.FillMode, l.Interpolation)
	d.Images = affineTransform(b, x, m, set.interpolation, set.fillMode, l.FillValue)
	d = withMasks(d, func(v backend.Value) backend.Value {
		return affineTransform(b, v, m, "nearest", set.fillMode, l.FillValue)
	})
	if d.Boxes == nil {
		return d
	}
	// The kept window: the zoom's map of (0, 0) and (width, height).
	size, format := imageSize(s), boundingboxes.Format(l.BoundingBoxFormat)
	ws, hs := m.a2, m.b2
	we, he := b.Add(b.Mul(zx, b.Scalar(float64(s[2]))), ws), b.Add(b.Mul(zy, b.Scalar(float64(s[1]))), hs)
	p := ops.Split(b, boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, size), 4, -1)
	in := func(v, lo, hi, extent backend.Value) backend.Value {
		return b.Div(b.Sub(ops.Minimum(b, ops.Maximum(b, v, lo), hi), lo), extent)
	}
	wt, ht := b.Sub(we, ws), b.Sub(he, hs)
	rel := ops.Concatenate(b, []backend.Value{in(p[0], ws, we, wt), in(p[1], hs, he, ht), in(p[2], ws, we, wt), in(p[3], hs, he, ht)}, -1)
	rel, d.BoxLabels = boundingboxes.ClipToImageSize(b, rel, d.BoxLabels, nil, boundingboxes.RelXYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, rel, boundingboxes.RelXYXY, format, size)
	return d
}

// GetConfig returns Keras's config.
func (l *RandomZoom) GetConfig() (serialization.Config, error) {
	set := settingsOf(l.FillMode, l.Interpolation)
	var width any
	if l.ownWidth() {
		width = factorConfig(l.WidthFactor, l.WidthRange)
	}
	return serialization.Config{"height_factor": factorConfig(l.HeightFactor, l.HeightRange), "width_factor": width,
		"fill_mode": set.fillMode, "fill_value": l.FillValue, "interpolation": set.interpolation, "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomZoom takes images of any size.
func (*RandomZoom) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomZoom with training=True by default.
func (*RandomZoom) trainsByDefault() {}

func init() {
	mustRegister("RandomZoom", func(r *serialization.Reader) (Layer, error) {
		hf, hr, given := readFactor(r, "height_factor")
		if !given {
			r.Fail("height_factor", "is required")
		}
		wf, wr, wGiven := readFactor(r, "width_factor")
		l := &RandomZoom{HeightFactor: hf, HeightRange: hr, WidthFactor: wf, WidthRange: wr, widthGiven: wGiven,
			FillMode: r.String("fill_mode", "reflect"), FillValue: r.Float("fill_value", 0), Interpolation: r.String("interpolation", "bilinear")}
		r.Ignore("seed") // decides only which zooms training draws
		expectChannelsLast(r)
		return l, nil
	})
}
