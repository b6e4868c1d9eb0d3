package boundingboxes

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/ops"
)

// IoUOptions are ComputeIoU's options beyond the boxes and their format.
type IoUOptions struct {
	// UseMasking gives MaskValue to every pair where a box has all its
	// numbers below 0 (padding boxes), as Keras's use_masking.
	UseMasking bool
	// MaskValue is the masked pairs' value; nil means Keras's -1.
	MaskValue *float64
	// Image is the image's size, which relative formats need (Keras's
	// image_shape).
	Image *Size
}

// ComputeIoU returns the intersection over union of every pair of
// boxes1 (M, 4) or (batch, M, 4) and boxes2 (N, 4) or (batch, N, 4), as
// (M, N) or (batch, M, N) (Keras's compute_iou, with Keras's epsilon in
// the union).
func ComputeIoU(b ops.Builder, boxes1, boxes2 ops.Value, format Format, o IoUOptions) ops.Value {
	if !checkBoxes(b, "ComputeIoU", "boxes1", boxes1) || !checkBoxes(b, "ComputeIoU", "boxes2", boxes2) {
		return b.Fail(nil, b.Err())
	}
	r1, r2 := len(boxes1.Shape()), len(boxes2.Shape())
	for _, r := range []struct {
		name string
		rank int
	}{{"boxes1", r1}, {"boxes2", r2}} {
		if r.rank != 2 && r.rank != 3 {
			return b.Fail(nil, fmt.Errorf("bounding_boxes.ComputeIoU: %s must be (N, 4) or (batch, N, 4); received rank %d", r.name, r.rank))
		}
	}
	if format.relative() && o.Image == nil {
		return b.Fail(nil, fmt.Errorf("bounding_boxes.ComputeIoU: a relative format (%q) needs the image's size: give IoUOptions.Image", format))
	}
	a := ConvertFormat(b, boxes1, format, YXYX, o.Image)
	c := ConvertFormat(b, boxes2, format, YXYX, o.Image)
	if b.Err() != nil {
		return b.Fail(nil, b.Err())
	}
	p1, p2 := sides(b, a), sides(b, c) // ymin, xmin, ymax, xmax, each (..., 1)
	perm := []int{1, 0}
	if r2 == 3 {
		perm = []int{0, 2, 1}
	}
	t := func(v ops.Value) ops.Value { return ops.Transpose(b, v, perm...) }
	ih := ops.Maximum(b, b.Scalar(0), ops.Subtract(b, ops.Minimum(b, p1[2], t(p2[2])), ops.Maximum(b, p1[0], t(p2[0]))))
	iw := ops.Maximum(b, b.Scalar(0), ops.Subtract(b, ops.Minimum(b, p1[3], t(p2[3])), ops.Maximum(b, p1[1], t(p2[1]))))
	inter := ops.Multiply(b, ih, iw)
	area := func(p []ops.Value) ops.Value {
		return ops.Squeeze(b, ops.Multiply(b, ops.Subtract(b, p[2], p[0]), ops.Subtract(b, p[3], p[1])), -1)
	}
	area1 := ops.ExpandDims(b, area(p1), -1)
	axis2 := 0
	if r2 == 3 {
		axis2 = 1
	}
	area2 := ops.ExpandDims(b, area(p2), axis2)
	union := ops.Subtract(b, ops.Add(b, area1, area2), inter)
	iou := ops.Divide(b, inter, ops.Add(b, union, b.Scalar(eps)))
	if !o.UseMasking {
		return iou
	}
	mask := -1.0
	if o.MaskValue != nil {
		mask = *o.MaskValue
	}
	background := func(v ops.Value) ops.Value {
		return ops.Less(b, ops.Max(b, v, ops.Axis(-1), ops.KeepDims()), b.Scalar(0))
	}
	perm1 := []int{1, 0}
	if r1 == 3 {
		perm1 = []int{0, 2, 1}
	}
	m := ops.LogicalOr(b, background(a), ops.Transpose(b, background(c), perm1...))
	return ops.Where(b, m, b.Scalar(mask), iou)
}

// ComputeCIoU returns the complete IoU of each pair of boxes, boxes1 and
// boxes2 of one shape (..., 4) (Keras's compute_ciou): the IoU less the
// centres' squared distance over the enclosing box's squared diagonal
// and the aspect-ratio term. Relative formats are refused, as Keras
// refuses them.
func ComputeCIoU(b ops.Builder, boxes1, boxes2 ops.Value, format Format) ops.Value {
	if !checkBoxes(b, "ComputeCIoU", "boxes1", boxes1) || !checkBoxes(b, "ComputeCIoU", "boxes2", boxes2) {
		return b.Fail(nil, b.Err())
	}
	if format.relative() {
		return b.Fail(nil, fmt.Errorf("bounding_boxes.ComputeCIoU: relative formats (%q) are not supported, as in Keras: convert the boxes to pixels first", format))
	}
	a := sides(b, ConvertFormat(b, boxes1, format, XYXY, nil))
	c := sides(b, ConvertFormat(b, boxes2, format, XYXY, nil))
	if b.Err() != nil {
		return b.Fail(nil, b.Err())
	}
	add, sub, mul, div := ops.Add, ops.Subtract, ops.Multiply, ops.Divide
	e := b.Scalar(eps)
	w1, h1 := sub(b, a[2], a[0]), add(b, sub(b, a[3], a[1]), e)
	w2, h2 := sub(b, c[2], c[0]), add(b, sub(b, c[3], c[1]), e)
	inter := mul(b,
		ops.Maximum(b, sub(b, ops.Minimum(b, a[2], c[2]), ops.Maximum(b, a[0], c[0])), b.Scalar(0)),
		ops.Maximum(b, sub(b, ops.Minimum(b, a[3], c[3]), ops.Maximum(b, a[1], c[1])), b.Scalar(0)))
	union := add(b, sub(b, add(b, mul(b, w1, h1), mul(b, w2, h2)), inter), e)
	iou := ops.Squeeze(b, div(b, inter, add(b, union, e)), -1)
	cw := sub(b, ops.Maximum(b, a[2], c[2]), ops.Minimum(b, a[0], c[0]))
	ch := sub(b, ops.Maximum(b, a[3], c[3]), ops.Minimum(b, a[1], c[1]))
	diag := ops.Squeeze(b, add(b, add(b, ops.Square(b, cw), ops.Square(b, ch)), e), -1)
	centre := func(lo, hi ops.Value) ops.Value { return div(b, add(b, lo, hi), b.Scalar(2)) }
	dist := ops.Squeeze(b, add(b,
		ops.Square(b, sub(b, centre(a[0], a[2]), centre(c[0], c[2]))),
		ops.Square(b, sub(b, centre(a[1], a[3]), centre(c[1], c[3])))), -1)
	v := ops.Squeeze(b, mul(b, b.Scalar(4/(math.Pi*math.Pi)),
		ops.Square(b, sub(b, ops.Arctan(b, div(b, w2, h2)), ops.Arctan(b, div(b, w1, h1))))), -1)
	alpha := div(b, v, add(b, sub(b, v, iou), b.Scalar(1+eps)))
	return sub(b, iou, add(b, div(b, dist, diag), mul(b, v, alpha)))
}
