package ops

// PerspectiveTransformOptions are image.perspective_transform's
// options; the zero value is Keras's default: bilinear, fill with 0.
type PerspectiveTransformOptions struct {
	// Interpolation is "bilinear" (when empty) or "nearest".
	Interpolation string
	// FillValue is what a point outside the image reads.
	FillValue float64
}

// PerspectiveTransform warps images (batch, height, width, channels),
// or one image (height, width, channels), by the perspective that moves
// the four points startPoints to endPoints, Keras's
// ops.image.perspective_transform: points (4, 2) or (batch, 4, 2) of
// (x, y) pixel coordinates; output pixel (x, y) reads the input where
// the homography from endPoints to startPoints takes it (Keras's
// compute_homography_matrix, solved per image), sampled as
// AffineTransform does with a constant fill. Differentiable in the
// images and the points.
func PerspectiveTransform(b Builder, images, startPoints, endPoints Value, o PerspectiveTransformOptions) Value {
	const op = "PerspectiveTransform"
	if missing(b, op, []string{"images", "start_points", "end_points"}, images, startPoints, endPoints) {
		return b.Fail(nil, b.Err())
	}
	if err := CheckAffineTransformModes(o.Interpolation, "constant"); err != nil {
		return failf(b, op, images.Shape(), "%v", err)
	}
	x, back, ok := batchOf(b, op, images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	points := func(name string, p Value) (Value, bool) {
		s := p.Shape()
		switch {
		case len(s) == 2 && s[0] == 4 && s[1] == 2:
			return b.Reshape(p, Shape{1, 4, 2}), true
		case len(s) == 3 && s[1] == 4 && s[2] == 2 && (s[0] == 1 || s[0] == x.Shape()[0]):
			return p, true
		}
		failf(b, op, s, "%s of shape %v: want (4, 2) for one image or (batch, 4, 2) with the images' batch %d", name, s, x.Shape()[0])
		return nil, false
	}
	start, ok1 := points("start_points", startPoints)
	end, ok2 := points("end_points", endPoints)
	if !ok1 || !ok2 {
		return b.Fail(nil, b.Err())
	}
	if start.Shape()[0] != end.Shape()[0] {
		return failf(b, op, start.Shape(), "start_points %v and end_points %v must have the same shape", startPoints.Shape(), endPoints.Shape())
	}
	transform := HomographyMatrix(b, start, end)
	return back(AffineTransform(b, x, transform, AffineTransformOptions{Interpolation: o.Interpolation, FillMode: "constant", FillValue: o.FillValue}))
}

// HomographyMatrix is the perspective transform, as AffineTransform's
// eight coefficients (batch, 8), that takes each endPoints (batch, 4, 2)
// to its startPoints: Keras's image.compute_homography_matrix, the 8×8
// linear system per image solved by Solve.
func HomographyMatrix(b Builder, startPoints, endPoints Value) Value {
	n := startPoints.Shape()[0]
	coord := func(p Value, i int) Value { return b.Reshape(sliceAxis(b, p, 2, i, 1), Shape{n, 4}) }
	sx, sy := coord(startPoints, 0), coord(startPoints, 1)
	ex, ey := coord(endPoints, 0), coord(endPoints, 1)
	zeros, ones := ZerosLike(b, ex), OnesLike(b, ex)
	xRows := Stack(b, []Value{ex, ey, ones, zeros, zeros, zeros, b.Neg(b.Mul(sx, ex)), b.Neg(b.Mul(sx, ey))}, -1)
	yRows := Stack(b, []Value{zeros, zeros, zeros, ex, ey, ones, b.Neg(b.Mul(sy, ex)), b.Neg(b.Mul(sy, ey))}, -1)
	a := b.Concat(1, xRows, yRows)                           // (n, 8, 8)
	target := b.Reshape(b.Concat(1, sx, sy), Shape{n, 8, 1}) // (n, 8, 1)
	return b.Reshape(Solve(b, a, target), Shape{n, 8})
}
