package boundingboxes_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
	bb "github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

func eval(t *testing.T, be backend.Backend, f func(b ops.Builder, in []ops.Value) ops.Value, in ...backendtest.Array) backendtest.Array {
	t.Helper()
	out, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{f(b, v)}, b.Err()
	}, in)
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// The examples of Keras's docstrings give Keras's documented results.
func TestBoundingBoxesKerasExamples(t *testing.T) {
	boxes := backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{10, 20, 30, 40, 50, 60, 70, 80}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		xywh := eval(t, be, func(b ops.Builder, in []ops.Value) ops.Value {
			return bb.ConvertFormat(b, in[0], bb.XYXY, bb.XYWH, nil)
		}, boxes)
		backendtest.AssertClose(t, "xyxy to xywh", xywh, backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{10, 20, 20, 20, 50, 60, 20, 20}}, 1e-12)
		rel := eval(t, be, func(b ops.Builder, in []ops.Value) ops.Value {
			return bb.ConvertFormat(b, in[0], "XYXY", bb.RelXYXY, &bb.Size{Height: 200, Width: 300})
		}, boxes)
		backendtest.AssertClose(t, "xyxy to rel_xyxy", rel, backendtest.Array{Shape: backend.Shape{2, 4},
			Data: []float64{10.0 / 300, 0.1, 0.1, 0.2, 50.0 / 300, 0.3, 70.0 / 300, 0.4}}, 1e-12)
		// identical boxes have an IoU of 1 (less Keras's epsilon), disjoint 0
		iou := eval(t, be, func(b ops.Builder, in []ops.Value) ops.Value {
			return bb.ComputeIoU(b, in[0], in[0], bb.XYXY, bb.IoUOptions{})
		}, boxes)
		backendtest.AssertClose(t, "IoU", iou, backendtest.Array{Shape: backend.Shape{2, 2}, Data: []float64{400 / (400 + 1e-7), 0, 0, 400 / (400 + 1e-7)}}, 1e-12)
	})
}

// CIoU is differentiable (a detection loss trains through it): its
// gradient matches finite differences on every engine.
func TestCIoUGradient(t *testing.T) {
	a := backendtest.Array{Shape: backend.Shape{3, 4}, Data: []float64{10, 20, 40, 60, 5, 5, 30, 25, 50, 40, 90, 100}}
	c := backendtest.Array{Shape: backend.Shape{3, 4}, Data: []float64{12, 18, 45, 55, 20, 10, 35, 40, 60, 60, 80, 90}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		loss := func(b backend.Builder, in []backend.Value) backend.Value {
			return b.Sum(b.Sub(b.Scalar(1), bb.ComputeCIoU(b, in[0], in[1], bb.XYXY)))
		}
		backendtest.CheckGradient(t, be, loss, []backendtest.Array{a, c}, []int{0, 1}, 1e-5)
	})
}

// Bad boxes and options are errors naming the function, the argument and
// what it takes.
func TestBoundingBoxesErrors(t *testing.T) {
	three := backendtest.Array{Shape: backend.Shape{2, 3}, Data: make([]float64, 6)}
	four := backendtest.Array{Shape: backend.Shape{2, 4}, Data: make([]float64, 8)}
	cases := []struct {
		name string
		in   backendtest.Array
		f    func(b ops.Builder, x ops.Value) ops.Value
		want []string
	}{
		{"last axis", three, func(b ops.Builder, x ops.Value) ops.Value { return bb.ConvertFormat(b, x, bb.XYXY, bb.XYWH, nil) },
			[]string{"ConvertFormat", "last dimension of 4", "(2, 3)"}},
		{"format", four, func(b ops.Builder, x ops.Value) ops.Value { return bb.ConvertFormat(b, x, "xxyy", bb.XYWH, nil) },
			[]string{"ConvertFormat", `"xxyy"`, "rel_center_xywh"}},
		{"relative without a size", four, func(b ops.Builder, x ops.Value) ops.Value { return bb.ConvertFormat(b, x, bb.XYXY, bb.RelXYWH, nil) },
			[]string{"ConvertFormat", "height and width"}},
		{"crop of yxyx", four, func(b ops.Builder, x ops.Value) ops.Value { return bb.Crop(b, x, 0, 0, 10, 10, bb.YXYX) },
			[]string{"Crop", `"yxyx"`, "ConvertFormat"}},
		{"affine rank", four, func(b ops.Builder, x ops.Value) ops.Value {
			return bb.AffineTransform(b, x, bb.Affine{}, bb.Size{Height: 10, Width: 10}, bb.XYXY)
		}, []string{"AffineTransform", "(batch, N, 4)"}},
		{"variance", four, func(b ops.Builder, x ops.Value) ops.Value {
			return bb.EncodeBoxToDeltas(b, x, x, bb.XYXY, bb.XYXY, bb.DeltaOptions{Variance: []float64{1, 2}})
		}, []string{"EncodeBoxToDeltas", "Variance must be 4 numbers"}},
		{"ciou relative", four, func(b ops.Builder, x ops.Value) ops.Value { return bb.ComputeCIoU(b, x, x, bb.RelXYXY) },
			[]string{"ComputeCIoU", "relative"}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
					out := c.f(b, v[0])
					if b.Err() != nil {
						return nil, b.Err()
					}
					return []backend.Value{out}, nil
				}, []backendtest.Array{c.in})
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			})
		}
	})
}
