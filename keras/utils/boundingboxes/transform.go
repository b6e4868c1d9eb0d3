package boundingboxes

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/ops"
)

// needXYXY records Keras's NotImplementedError for the functions that
// take xyxy boxes only.
func needXYXY(b ops.Builder, fn string, f Format, ok ...Format) bool {
	for _, k := range append([]Format{XYXY}, ok...) {
		if f.std() == k {
			return true
		}
	}
	b.Fail(nil, fmt.Errorf("bounding_boxes.%s: takes %v boxes, not %q (as Keras): convert them with ConvertFormat first", fn, append([]Format{XYXY}, ok...), f))
	return false
}

// area is (x2-x1)·(y2-y1) of xyxy boxes, (..., 1).
func area(b ops.Builder, boxes ops.Value) ops.Value {
	p := sides(b, boxes)
	return ops.Multiply(b, ops.Subtract(b, p[2], p[0]), ops.Subtract(b, p[3], p[1]))
}

// ClipToImageSize clips xyxy boxes (..., 4) to the image (Keras's
// clip_to_image_size): pixels to [0, width] and [0, height], or rel_xyxy
// fractions to [0, 1] (size may then be nil). With labels (the boxes'
// shape without the last axis), a box left with no area gets label -1.
func ClipToImageSize(b ops.Builder, boxes, labels ops.Value, size *Size, format Format) (clipped, newLabels ops.Value) {
	if !checkBoxes(b, "ClipToImageSize", "boxes", boxes) || !needXYXY(b, "ClipToImageSize", format, RelXYXY) {
		return b.Fail(nil, b.Err()), labels
	}
	w, h := 1.0, 1.0
	if format.std() == XYXY {
		if size == nil {
			return b.Fail(boxes.Shape(), fmt.Errorf("bounding_boxes.ClipToImageSize: xyxy boxes need the image's height and width: give a Size")), labels
		}
		w, h = size.Width, size.Height
	}
	p := sides(b, boxes)
	clipped = join(b, ops.Clip(b, p[0], 0, w), ops.Clip(b, p[1], 0, h), ops.Clip(b, p[2], 0, w), ops.Clip(b, p[3], 0, h))
	if labels == nil {
		return clipped, nil
	}
	areas := ops.Squeeze(b, area(b, clipped), -1)
	return clipped, ops.Where(b, ops.Greater(b, areas, b.Scalar(0)), labels, b.Scalar(-1))
}

// Crop moves xyxy boxes into a crop of the image whose top-left corner
// is (left, top), clipped to its height and width (Keras's crop).
func Crop(b ops.Builder, boxes ops.Value, top, left, height, width float64, format Format) ops.Value {
	if !checkBoxes(b, "Crop", "boxes", boxes) || !needXYXY(b, "Crop", format) {
		return b.Fail(nil, b.Err())
	}
	p := sides(b, boxes)
	shift := func(v ops.Value, by, hi float64) ops.Value {
		return ops.Clip(b, ops.Subtract(b, v, b.Scalar(by)), 0, hi)
	}
	return join(b, shift(p[0], left, width), shift(p[1], top, height), shift(p[2], left, width), shift(p[3], top, height))
}

// Pad moves xyxy boxes by the padding added above and to the left of the
// image (Keras's pad).
func Pad(b ops.Builder, boxes ops.Value, top, left float64, format Format) ops.Value {
	if !checkBoxes(b, "Pad", "boxes", boxes) || !needXYXY(b, "Pad", format) {
		return b.Fail(nil, b.Err())
	}
	p := sides(b, boxes)
	x, y := b.Scalar(left), b.Scalar(top)
	return join(b, ops.Add(b, p[0], x), ops.Add(b, p[1], y), ops.Add(b, p[2], x), ops.Add(b, p[3], y))
}

// Affine is an affine transform per image, each field (batch,): Keras's
// affine_transform arguments. Angles are in degrees, translations
// fractions of the image's size; CenterX and CenterY are the centre as
// fractions (nil: Keras's 0.5).
type Affine struct {
	Angle, TranslateX, TranslateY, Scale, ShearX, ShearY ops.Value
	CenterX, CenterY                                     *float64
}

// AffineTransform transforms xyxy boxes (batch, N, 4) by each image's
// transform on an image of the given size (Keras's affine_transform):
// the four corners go through the inverse of the image's sampling matrix
// (TensorFlow's _get_inverse_affine_matrix), and each box becomes the
// corners' bounding box.
func AffineTransform(b ops.Builder, boxes ops.Value, t Affine, size Size, format Format) ops.Value {
	if !checkBoxes(b, "AffineTransform", "boxes", boxes) || !needXYXY(b, "AffineTransform", format) {
		return b.Fail(nil, b.Err())
	}
	s := boxes.Shape()
	if len(s) != 3 {
		return b.Fail(s, fmt.Errorf("bounding_boxes.AffineTransform: boxes must be (batch, N, 4); received shape %v", s))
	}
	for _, f := range []struct {
		name string
		v    ops.Value
	}{{"Angle", t.Angle}, {"TranslateX", t.TranslateX}, {"TranslateY", t.TranslateY}, {"Scale", t.Scale}, {"ShearX", t.ShearX}, {"ShearY", t.ShearY}} {
		if f.v == nil || len(f.v.Shape()) != 1 || f.v.Shape()[0] != s[0] {
			var got any = "nil"
			if f.v != nil {
				got = f.v.Shape()
			}
			return b.Fail(s, fmt.Errorf("bounding_boxes.AffineTransform: %s must be (batch,) = (%d,), one per image; received %v", f.name, s[0], got))
		}
	}
	cxf, cyf := 0.5, 0.5
	if t.CenterX != nil {
		cxf = *t.CenterX
	}
	if t.CenterY != nil {
		cyf = *t.CenterY
	}
	sc := func(v float64) ops.Value { return b.Scalar(v) }
	mul, sub, add, div := ops.Multiply, ops.Subtract, ops.Add, ops.Divide
	angle, shearX, shearY := ops.Negative(b, t.Angle), ops.Negative(b, t.ShearX), ops.Negative(b, t.ShearY)
	cx, cy := sc(cxf*(size.Width-1)), sc(cyf*(size.Height-1))
	rot := mul(b, angle, sc(1.0/180.0*math.Pi))
	tx := mul(b, ops.Negative(b, t.TranslateX), sc(size.Width-1))
	ty := mul(b, ops.Negative(b, t.TranslateY), sc(size.Height-1))
	sx := mul(b, shearX, sc(1.0/180.0*math.Pi))
	sy := mul(b, shearY, sc(1.0/180.0*math.Pi))
	cosSy, tanSx := ops.Cos(b, sy), ops.Tan(b, sx)
	rotMinusSy := sub(b, rot, sy)
	cxPlusTx, cyPlusTy := add(b, cx, tx), add(b, cy, ty)
	a := div(b, ops.Cos(b, rotMinusSy), cosSy)
	bb := add(b, mul(b, a, tanSx), ops.Sin(b, rot))
	c := div(b, ops.Negative(b, ops.Sin(b, rotMinusSy)), cosSy)
	d := sub(b, ops.Cos(b, rot), mul(b, c, tanSx))
	a0, a1 := mul(b, d, t.Scale), mul(b, ops.Negative(b, bb), t.Scale)
	b0, b1 := mul(b, ops.Negative(b, c), t.Scale), mul(b, a, t.Scale)
	a2 := sub(b, sub(b, cx, mul(b, a0, cxPlusTx)), mul(b, a1, cyPlusTy))
	b2 := sub(b, sub(b, cy, mul(b, b0, cxPlusTx)), mul(b, b1, cyPlusTy))
	// corners (x, y): (x1, y1), (x2, y1), (x2, y2), (x1, y2), each (batch, N)
	p := sides(b, boxes)
	xs := []ops.Value{p[0], p[2], p[2], p[0]}
	ys := []ops.Value{p[1], p[1], p[3], p[3]}
	row := func(v ops.Value) ops.Value { return ops.Reshape(b, v, s[0], 1, 1) } // per image, over N and the corner
	X := ops.Concatenate(b, xs, -1)                                             // (batch, N, 4 corners)
	Y := ops.Concatenate(b, ys, -1)
	newX := add(b, add(b, mul(b, X, row(a0)), mul(b, Y, row(a1))), row(a2))
	newY := add(b, add(b, mul(b, X, row(b0)), mul(b, Y, row(b1))), row(b2))
	min := func(v ops.Value) ops.Value { return ops.Amin(b, v, ops.Axis(-1), ops.KeepDims()) }
	max := func(v ops.Value) ops.Value { return ops.Amax(b, v, ops.Axis(-1), ops.KeepDims()) }
	return join(b, min(newX), min(newY), max(newX), max(newY))
}
