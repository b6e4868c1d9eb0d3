package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomPerspective warps some images by a random perspective during
// training, like keras.layers.RandomPerspective: an image is warped with
// a probability drawn per image from the factor's range; its corners
// (0, 0), (W-1, 0), (0, H-1), (W-1, H-1) move to p + p·d, d drawn per
// corner and axis from [-Scale/2, Scale/2) (as Keras scales by the
// corner's own coordinates, the corner at the origin stays), by
// ops.PerspectiveTransform with a constant fill. Outside training it
// passes its input through.
//
// A single Factor f gives the range (0, f); Keras's default factor and
// scale are 1, which the zero values are not: set them.
type RandomPerspective struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	Scale       float64    // in [0, 1]
	// Interpolation is "bilinear" (the default when empty) or "nearest".
	Interpolation string
	FillValue     float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomPerspective".
func (*RandomPerspective) ClassName() string { return "RandomPerspective" }

func (l *RandomPerspective) interpolation() string {
	if l.Interpolation == "" {
		return "bilinear"
	}
	return l.Interpolation
}

// Build checks the settings; the shape is unchanged.
func (l *RandomPerspective) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return nil, err
	}
	if l.Scale < 0 || l.Scale > 1 {
		return nil, fmt.Errorf("scale must be a number in [0, 1], got %v", l.Scale)
	}
	if err := checkImages(in); err != nil {
		return nil, err
	}
	return in.Clone(), checkTransformModes(l.interpolation(), "constant")
}

// Call warps the chosen images in training.
func (l *RandomPerspective) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes; the shapes are unchanged.
func (l *RandomPerspective) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData warps the images and their boxes, in training: each
// box becomes the bounding box of its four corners carried by the warp
// (the inverse of the homography that samples the image), clipped to the
// image (a box left with no area gets label -1), as Keras's
// transform_bounding_boxes. Keras then returns the boxes as xyxy
// whatever the format; kerasgo converts them back to the format (the
// same for xyxy).
func (l *RandomPerspective) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b, s := ctx.B, x.Shape()
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	apply := coin(b, x, f[0], f[1])
	w, h := float64(s[2]-1), float64(s[1]-1)
	corners := make([]float64, 0, 8*s[0])
	for range s[0] {
		corners = append(corners, 0, 0, w, 0, 0, h, w, h)
	}
	start := b.Constant(corners, backend.Shape{s[0], 4, 2})
	shift := b.Mul(b.Sub(b.RandomUniform(backend.Shape{s[0], 4, 2}), b.Scalar(0.5)), b.Scalar(l.Scale))
	end := b.Add(start, b.Mul(start, shift))
	warped := ops.PerspectiveTransform(b, x, start, end, ops.PerspectiveTransformOptions{Interpolation: l.interpolation(), FillValue: l.FillValue})
	d.Images = ops.Where(b, apply, warped, x)
	d = withMasks(d, func(v backend.Value) backend.Value {
		return ops.Where(b, apply, ops.PerspectiveTransform(b, v, start, end, ops.PerspectiveTransformOptions{Interpolation: "nearest", FillValue: l.FillValue}), v)
	})
	if d.Boxes == nil {
		return d
	}
	n := s[0]
	size, format := imageSize(s), boundingboxes.Format(l.BoundingBoxFormat)
	boxes := boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, size)
	homography := b.Reshape(ops.Concatenate(b, []backend.Value{ops.HomographyMatrix(b, start, end), ops.Ones(b, n, 1)}, 1), backend.Shape{n, 3, 3})
	inv := ops.Inv(b, homography)
	at := func(i, j int) backend.Value {
		return b.Reshape(ops.Slice(b, inv, []int{0, i, j}, []int{n, 1, 1}), backend.Shape{n, 1, 1})
	}
	carry := func(px, py backend.Value) (backend.Value, backend.Value) {
		row := func(i int) backend.Value { return b.Add(b.Add(b.Mul(at(i, 0), px), b.Mul(at(i, 1), py)), at(i, 2)) }
		k := row(2)
		return b.Div(row(0), k), b.Div(row(1), k)
	}
	p := ops.Split(b, boxes, 4, -1)
	var xs, ys []backend.Value
	for _, c := range [][2]int{{0, 1}, {2, 3}, {0, 3}, {2, 1}} {
		cx, cy := carry(p[c[0]], p[c[1]])
		xs, ys = append(xs, cx), append(ys, cy)
	}
	lo := func(v []backend.Value) backend.Value {
		return ops.Min(b, ops.Concatenate(b, v, -1), ops.Axis(-1), ops.KeepDims())
	}
	hi := func(v []backend.Value) backend.Value {
		return ops.Max(b, ops.Concatenate(b, v, -1), ops.Axis(-1), ops.KeepDims())
	}
	warpedBoxes := ops.Concatenate(b, []backend.Value{lo(xs), lo(ys), hi(xs), hi(ys)}, -1)
	boxes = ops.Where(b, b.Reshape(apply, backend.Shape{n, 1, 1}), warpedBoxes, boxes)
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, size, boundingboxes.XYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.XYXY, format, size)
	return d
}

// GetConfig returns Keras's config.
func (l *RandomPerspective) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "scale": l.Scale, "interpolation": l.interpolation(), "fill_value": l.FillValue,
		"seed": nil, "data_format": "channels_last"}, nil
}

// trainsByDefault: Keras calls RandomPerspective with training=True by default.
func (*RandomPerspective) trainsByDefault() {}

func init() {
	mustRegister("RandomPerspective", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		l := &RandomPerspective{Factor: f, FactorRange: pair, Scale: r.Float("scale", 1), Interpolation: r.String("interpolation", "bilinear"),
			FillValue: r.Float("fill_value", 0)}
		r.Ignore("seed") // decides only which perspectives training draws
		expectChannelsLast(r)
		return l, nil
	})
}
