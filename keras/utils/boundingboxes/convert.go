package boundingboxes

import (
	"fmt"
	"strings"

	"github.com/kerasgo/kerasgo/keras/ops"
)

// Format is a bounding-box format, as Keras names them (case does not
// matter): the four numbers of each box's last axis.
type Format string

// Keras's bounding-box formats. The rel_ formats are fractions of the
// image's height and width, the others pixels.
const (
	XYXY          Format = "xyxy"            // left, top, right, bottom
	YXYX          Format = "yxyx"            // top, left, bottom, right
	XYWH          Format = "xywh"            // left, top, width, height
	CenterXYWH    Format = "center_xywh"     // centre x, centre y, width, height
	CenterYXHW    Format = "center_yxhw"     // centre y, centre x, height, width
	RelXYXY       Format = "rel_xyxy"        // xyxy as fractions
	RelYXYX       Format = "rel_yxyx"        // yxyx as fractions
	RelXYWH       Format = "rel_xywh"        // xywh as fractions
	RelCenterXYWH Format = "rel_center_xywh" // center_xywh as fractions
)

var formats = []Format{XYXY, YXYX, XYWH, CenterXYWH, CenterYXHW, RelXYXY, RelYXYX, RelXYWH, RelCenterXYWH}

func (f Format) std() Format { return Format(strings.ToLower(string(f))) }

func (f Format) relative() bool { return strings.HasPrefix(string(f.std()), "rel_") }

func (f Format) valid() bool {
	for _, k := range formats {
		if f.std() == k {
			return true
		}
	}
	return false
}

// Check reports a format Keras does not know, naming those it knows.
func (f Format) Check() error {
	if f.valid() {
		return nil
	}
	return fmt.Errorf("unknown bounding box format %q: use one of %v", string(f), formats)
}

// Size is an image's height and width in pixels, which the relative
// formats need (Keras's height and width arguments).
type Size struct{ Height, Width float64 }

// eps is Keras's backend.epsilon().
const eps = 1e-7

// sides splits boxes (..., 4) into its four numbers, each (..., 1).
func sides(b ops.Builder, boxes ops.Value) []ops.Value { return ops.Split(b, boxes, 4, -1) }

func join(b ops.Builder, parts ...ops.Value) ops.Value { return ops.Concatenate(b, parts, -1) }

// checkBoxes records an error naming fn unless boxes is (..., 4).
func checkBoxes(b ops.Builder, fn, arg string, boxes ops.Value) bool {
	if boxes == nil {
		b.Fail(nil, fmt.Errorf("bounding_boxes.%s: %s is nil", fn, arg))
		return false
	}
	if s := boxes.Shape(); len(s) == 0 || s[len(s)-1] != 4 {
		b.Fail(s, fmt.Errorf("bounding_boxes.%s: %s must have a last dimension of 4 (one box's four numbers); received shape %v", fn, arg, s))
		return false
	}
	return b.Err() == nil
}

// ConvertFormat converts boxes (..., 4) from the source format to the
// target (Keras's keras.utils.bounding_boxes.convert_format): through
// xyxy, as Keras computes it. A relative format on either side needs the
// image's size.
func ConvertFormat(b ops.Builder, boxes ops.Value, source, target Format, size *Size) ops.Value {
	if !checkBoxes(b, "ConvertFormat", "boxes", boxes) {
		return b.Fail(nil, b.Err())
	}
	if !source.valid() || !target.valid() {
		return b.Fail(boxes.Shape(), fmt.Errorf("bounding_boxes.ConvertFormat: invalid source or target format %q -> %q: supported formats are %v", source, target, formats))
	}
	source, target = source.std(), target.std()
	if (source.relative() || target.relative()) && size == nil {
		return b.Fail(boxes.Shape(), fmt.Errorf("bounding_boxes.ConvertFormat: converting between %q and %q needs the image's height and width: give a Size", source, target))
	}
	if source == target {
		return boxes
	}
	if source.relative() && target.relative() {
		source, target = Format(strings.TrimPrefix(string(source), "rel_")), Format(strings.TrimPrefix(string(target), "rel_"))
	}
	return fromXYXY(b, toXYXY(b, boxes, source, size), target, size)
}

func toXYXY(b ops.Builder, boxes ops.Value, f Format, size *Size) ops.Value {
	p := sides(b, boxes)
	half := func(v ops.Value) ops.Value { return ops.Divide(b, v, b.Scalar(2)) }
	scaled := func(x1, y1, x2, y2 ops.Value) ops.Value {
		w, h := b.Scalar(size.Width), b.Scalar(size.Height)
		return join(b, ops.Multiply(b, x1, w), ops.Multiply(b, y1, h), ops.Multiply(b, x2, w), ops.Multiply(b, y2, h))
	}
	switch f {
	case XYXY:
		return boxes
	case YXYX:
		return join(b, p[1], p[0], p[3], p[2])
	case XYWH:
		return join(b, p[0], p[1], ops.Add(b, p[0], p[2]), ops.Add(b, p[1], p[3]))
	case CenterXYWH, RelCenterXYWH:
		hw, hh := half(p[2]), half(p[3])
		x1, y1, x2, y2 := ops.Subtract(b, p[0], hw), ops.Subtract(b, p[1], hh), ops.Add(b, p[0], hw), ops.Add(b, p[1], hh)
		if f == RelCenterXYWH {
			return scaled(x1, y1, x2, y2)
		}
		return join(b, x1, y1, x2, y2)
	case CenterYXHW:
		hw, hh := half(p[3]), half(p[2])
		return join(b, ops.Subtract(b, p[1], hw), ops.Subtract(b, p[0], hh), ops.Add(b, p[1], hw), ops.Add(b, p[0], hh))
	case RelXYXY:
		return scaled(p[0], p[1], p[2], p[3])
	case RelYXYX:
		return scaled(p[1], p[0], p[3], p[2])
	case RelXYWH:
		return scaled(p[0], p[1], ops.Add(b, p[0], p[2]), ops.Add(b, p[1], p[3]))
	}
	panic("unreachable: formats are checked")
}

func fromXYXY(b ops.Builder, boxes ops.Value, f Format, size *Size) ops.Value {
	p := sides(b, boxes)
	x1, y1, x2, y2 := p[0], p[1], p[2], p[3]
	w, h := ops.Subtract(b, x2, x1), ops.Subtract(b, y2, y1)
	cx := ops.Add(b, x1, ops.Divide(b, w, b.Scalar(2)))
	cy := ops.Add(b, y1, ops.Divide(b, h, b.Scalar(2)))
	var iw, ih ops.Value
	if size != nil {
		iw, ih = b.Scalar(size.Width), b.Scalar(size.Height)
	}
	switch f {
	case XYXY:
		return boxes
	case YXYX:
		return join(b, y1, x1, y2, x2)
	case XYWH:
		return join(b, x1, y1, w, h)
	case CenterXYWH:
		return join(b, cx, cy, w, h)
	case CenterYXHW:
		return join(b, cy, cx, h, w)
	case RelXYXY:
		return join(b, ops.Divide(b, x1, iw), ops.Divide(b, y1, ih), ops.Divide(b, x2, iw), ops.Divide(b, y2, ih))
	case RelYXYX:
		return join(b, ops.Divide(b, y1, ih), ops.Divide(b, x1, iw), ops.Divide(b, y2, ih), ops.Divide(b, x2, iw))
	case RelXYWH:
		return join(b, ops.Divide(b, x1, iw), ops.Divide(b, y1, ih), ops.Divide(b, w, iw), ops.Divide(b, h, ih))
	case RelCenterXYWH:
		return join(b, ops.Divide(b, cx, iw), ops.Divide(b, cy, ih), ops.Divide(b, w, iw), ops.Divide(b, h, ih))
	}
	panic("unreachable: formats are checked")
}
