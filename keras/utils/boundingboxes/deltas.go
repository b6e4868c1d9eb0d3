package boundingboxes

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/ops"
)

// DeltaOptions are EncodeBoxToDeltas's and DecodeDeltasToBoxes's options.
type DeltaOptions struct {
	// Encoding is the centre format the deltas are in: CenterYXHW (the
	// default when empty, Keras's) or CenterXYWH.
	Encoding Format
	// Variance, four numbers or nil, divides the deltas when encoding and
	// multiplies them when decoding.
	Variance []float64
	// Image is the image's size, which relative formats need.
	Image *Size
}

func (o DeltaOptions) check(b ops.Builder, fn string) (Format, bool) {
	enc := o.Encoding.std()
	if enc == "" {
		enc = CenterYXHW
	}
	if enc != CenterYXHW && enc != CenterXYWH {
		b.Fail(nil, fmt.Errorf("bounding_boxes.%s: the encoding format should be %q or %q, got %q", fn, CenterXYWH, CenterYXHW, o.Encoding))
		return "", false
	}
	if o.Variance != nil && len(o.Variance) != 4 {
		b.Fail(nil, fmt.Errorf("bounding_boxes.%s: Variance must be 4 numbers, got %v", fn, o.Variance))
		return "", false
	}
	return enc, true
}

// EncodeBoxToDeltas encodes boxes relative to anchors (both (..., 4),
// broadcasting) as deltas (Keras's encode_box_to_deltas): in the centre
// format, the centres' offsets over the anchor's size and the log of the
// sizes' ratio, sizes at least Keras's epsilon.
func EncodeBoxToDeltas(b ops.Builder, anchors, boxes ops.Value, anchorFormat, boxFormat Format, o DeltaOptions) ops.Value {
	enc, ok := o.check(b, "EncodeBoxToDeltas")
	if !ok || !checkBoxes(b, "EncodeBoxToDeltas", "anchors", anchors) || !checkBoxes(b, "EncodeBoxToDeltas", "boxes", boxes) {
		return b.Fail(nil, b.Err())
	}
	a := ConvertFormat(b, anchors, anchorFormat, enc, o.Image)
	x := ConvertFormat(b, boxes, boxFormat, enc, o.Image)
	if b.Err() != nil {
		return b.Fail(nil, b.Err())
	}
	ac := ops.Split(b, a, 2, -1)
	as := ops.Maximum(b, ac[1], b.Scalar(eps))
	xc := ops.Split(b, x, 2, -1)
	xs := ops.Maximum(b, xc[1], b.Scalar(eps))
	d := ops.Concatenate(b, []ops.Value{ops.Divide(b, ops.Subtract(b, xc[0], ac[0]), as), ops.Log(b, ops.Divide(b, xs, as))}, -1)
	if o.Variance != nil {
		d = ops.Divide(b, d, b.Constant(o.Variance, ops.Shape{4}))
	}
	return d
}

// DecodeDeltasToBoxes turns deltas relative to anchors back into boxes of
// boxFormat (Keras's decode_deltas_to_boxes for one level; call it per
// level for Keras's dict of levels).
func DecodeDeltasToBoxes(b ops.Builder, anchors, deltas ops.Value, anchorFormat, boxFormat Format, o DeltaOptions) ops.Value {
	enc, ok := o.check(b, "DecodeDeltasToBoxes")
	if !ok || !checkBoxes(b, "DecodeDeltasToBoxes", "anchors", anchors) || !checkBoxes(b, "DecodeDeltasToBoxes", "deltas", deltas) {
		return b.Fail(nil, b.Err())
	}
	a := ConvertFormat(b, anchors, anchorFormat, enc, o.Image)
	if b.Err() != nil {
		return b.Fail(nil, b.Err())
	}
	if o.Variance != nil {
		deltas = ops.Multiply(b, deltas, b.Constant(o.Variance, ops.Shape{4}))
	}
	ac, dc := ops.Split(b, a, 2, -1), ops.Split(b, deltas, 2, -1)
	box := ops.Concatenate(b, []ops.Value{ops.Add(b, ops.Multiply(b, dc[0], ac[1]), ac[0]), ops.Multiply(b, ops.Exp(b, dc[1]), ac[1])}, -1)
	return ConvertFormat(b, box, enc, boxFormat, o.Image)
}
