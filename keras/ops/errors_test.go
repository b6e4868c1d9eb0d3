package ops_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// A bad argument is an error naming the op, the argument and the shapes,
// as Keras's ValueError, reported by the Builder, never a panic.
func TestOpErrorsNameTheOpAndTheShapes(t *testing.T) {
	x := backendtest.Array{Shape: backend.Shape{2, 3}, Data: make([]float64, 6)}
	y := backendtest.Array{Shape: backend.Shape{4}, Data: make([]float64, 4)}
	cases := []struct {
		name  string
		build func(b ops.Builder, x, y ops.Value) ops.Value
		want  []string
	}{
		{"axis out of range", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Sum(b, x, ops.Axis(2)) },
			[]string{"ops.Sum", "axis [2]", "(2, 3)"}},
		{"shapes that do not broadcast", func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Power(b, x, y) },
			[]string{"ops.Power", "(2, 3)", "(4,)", "do not broadcast"}},
		{"matmul inner dimensions", func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Matmul(b, x, y) },
			[]string{"ops.Matmul", "(2, 3)", "(4,)", "inner dimensions"}},
		{"reshape size", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Reshape(b, x, 4, -1) },
			[]string{"ops.Reshape", "(2, 3)", "[4 -1]"}},
		{"squeeze a long axis", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Squeeze(b, x, 1) },
			[]string{"ops.Squeeze", "axis 1", "size 3"}},
		{"split unevenly", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Split(b, x, 2, 1)[0] },
			[]string{"ops.Split", "size 3", "2 equal sections"}},
		{"top_k beyond the axis", func(b ops.Builder, x, _ ops.Value) ops.Value { v, _ := ops.TopK(b, x, 5); return v },
			[]string{"ops.TopK", "k = 5", "(2, 3)"}},
		{"einsum labels", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Einsum(b, "ijk->i", x) },
			[]string{"ops.Einsum", "3 labels", "(2, 3)"}},
		{"cast to int", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Cast(b, x, backend.Int32) },
			[]string{"ops.Cast", "int32"}},
		{"nil argument", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.Transpose(b, nil) },
			[]string{"ops.Transpose", "nil"}},
		{"ctc_loss lengths", func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.CtcLoss(b, x, ops.Reshape(b, x, 2, 3, 1), y, y, 0)
		}, []string{"ops.CtcLoss", "target_length (4,)", "(batch,) = (2,)"}},
		{"conv_transpose channels", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.ConvTranspose(b, ops.Reshape(b, x, 1, 2, 3), ops.Reshape(b, x, 1, 3, 2), ops.ConvTransposeOptions{})
		}, []string{"ops.ConvTranspose", "takes 2 input channels", "(1, 2, 3) has 3"}},
		{"3-D conv kernel rank", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Conv(b, ops.Reshape(b, x, 1, 1, 2, 3, 1), ops.Reshape(b, x, 1, 2, 1, 3), ops.ConvOptions{})
		}, []string{"ops.Conv", "kernel of shape (1, 2, 1, 3)", "(1, 1, 2, 3, 1)", "(depth, rows, cols, in_channels, filters)"}},
		{"3-D pool larger than the depth", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.MaxPool(b, ops.Reshape(b, x, 1, 1, 2, 3, 1), []int{2}, ops.PoolOptions{})
		}, []string{"ops.MaxPool", "depth 2", "larger than the input's 1"}},
		{"3-D strides", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.AveragePool(b, ops.Reshape(b, x, 1, 1, 2, 3, 1), []int{1}, ops.PoolOptions{Strides: []int{1, 2}})
		}, []string{"ops.AveragePool", "strides [1 2]", "one per spatial axis (3)"}},
		{"rank 6", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Conv(b, ops.Reshape(b, x, 1, 1, 1, 2, 3, 1), x, ops.ConvOptions{})
		}, []string{"ops.Conv", "(1, 1, 1, 2, 3, 1)", "(batch, depth, rows, cols, channels)"}},
		{"pad widths", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Pad(b, x, [][2]int{{1, 1}}, ops.PadConstant, 0)
		}, []string{"ops.Pad", "1 pad widths", "rank 2"}},
		{"scale_and_translate by an unknown method", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.ScaleAndTranslate(b, x, []int{4, 6}, []float64{2, 2}, []float64{0, 0}, []int{0, 1}, "area", ops.ScaleAndTranslateOptions{})
		}, []string{"ops.ScaleAndTranslate", "(2, 3)", `"area"`, "lanczos3"}},
		{"scale_and_translate a non-spatial axis", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.ScaleAndTranslate(b, x, []int{4, 6}, []float64{2}, []float64{0}, []int{1}, "linear", ops.ScaleAndTranslateOptions{})
		}, []string{"ops.ScaleAndTranslate", "(2, 3)", "axis 0", "not in spatial_dims"}},
		{"scale_and_translate without a scale per axis", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.ScaleAndTranslate(b, x, []int{4, 6}, []float64{2}, []float64{0, 0}, []int{0, 1}, "linear", ops.ScaleAndTranslateOptions{})
		}, []string{"ops.ScaleAndTranslate", "one scale and one translation per spatial axis"}},
		{"vectorize core axes that disagree", func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Vectorize(b, func(a ...ops.Value) []ops.Value { return a[:1] }, "(n),(n)->(n)", x, ops.Reshape(b, x, 3, 2))[0]
		}, []string{"ops.Vectorize", "core axis n", "is 2 in argument 1", "(3, 2)"}},
		{"vectorize a signature without an arrow", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Vectorize(b, func(a ...ops.Value) []ops.Value { return a }, "(n)", x)[0]
		}, []string{"ops.Vectorize", `"(n)"`, "->"}},
		{"vectorize a non-scalar result without a signature", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Vectorize(b, func(a ...ops.Value) []ops.Value { return []ops.Value{ops.Stack(b, []ops.Value{a[0], a[0]}, 0)} }, "", x)[0]
		}, []string{"ops.Vectorize", "must return scalars", "(2,)", "signature"}},
		{"jvp with a tangent of another shape", func(b ops.Builder, x, _ ops.Value) ops.Value {
			out, _ := ops.Jvp(b, func(p ...ops.Value) ops.Value { return p[0] }, []ops.Value{x}, []ops.Value{ops.Reshape(b, x, 3, 2)})
			return out
		}, []string{"ops.Jvp", "tangent 0 has shape (3, 2)", "(2, 3)"}},
		{"rearrange without an arrow", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Rearrange(b, x, "a b", nil)
		}, []string{"ops.Rearrange", "(2, 3)", "->"}},
		{"rearrange dropping an axis", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Rearrange(b, x, "a b -> a", nil)
		}, []string{"ops.Rearrange", `"b"`, "missing on the right"}},
		{"rearrange a new axis", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Rearrange(b, x, "a b -> a b c", nil)
		}, []string{"ops.Rearrange", `"c"`, "not on the left"}},
		{"rearrange a group with two unknown lengths", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Rearrange(b, x, "a (b1 b2) -> a b1 b2", nil)
		}, []string{"ops.Rearrange", "b1 and b2", "give all but one"}},
		{"rearrange a length that does not divide", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Rearrange(b, x, "a (b1 b2) -> a b1 b2", map[string]int{"b1": 2})
		}, []string{"ops.Rearrange", "3 values", "do not divide"}},
		{"rearrange the wrong rank", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Rearrange(b, x, "a b c -> c b a", nil)
		}, []string{"ops.Rearrange", "3 axes", "has 2"}},
		{"unfold a 2-D input", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Unfold(b, x, []int{2}, ops.UnfoldOptions{})
		}, []string{"ops.Unfold", "(2, 3)", "must be 4-D"}},
		{"unfold a kernel larger than the image", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Unfold(b, ops.Reshape(b, x, 1, 1, 2, 3), []int{3}, ops.UnfoldOptions{})
		}, []string{"ops.Unfold", "(1, 1, 2, 3)"}},
		{"unfold negative padding", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Unfold(b, ops.Reshape(b, x, 1, 1, 2, 3), []int{1}, ops.UnfoldOptions{Padding: []int{-1}})
		}, []string{"ops.Unfold", "padding [-1]", "negative"}},
		{"fold blocks that do not fit the output", func(b ops.Builder, x, _ ops.Value) ops.Value {
			return ops.Fold(b, ops.Reshape(b, x, 1, 2, 3), []int{3, 3}, []int{2}, ops.UnfoldOptions{})
		}, []string{"ops.Fold", "(1, 2, 3)", "blocks of 2x2", "want (batch, C·4, 4)"}},
		{"saturate_cast to int", func(b ops.Builder, x, _ ops.Value) ops.Value { return ops.SaturateCast(b, x, backend.Int32) },
			[]string{"ops.SaturateCast", "int32", "Clip"}},
		{"custom gradient without a gradient function", func(b ops.Builder, x, _ ops.Value) ops.Value {
			f := ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) { return ops.Square(b, xs[0]), nil })
			return f(b, x)
		}, []string{"ops.CustomGradient", "no gradient function"}},
		{"custom gradient of the wrong shape", func(b ops.Builder, x, _ ops.Value) ops.Value {
			f := ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
				return ops.Square(b, xs[0]), func(up ops.Value) []ops.Value { return []ops.Value{ops.Sum(b, up)} }
			})
			return b.Grad(ops.Sum(b, f(b, x)), []ops.Value{x})[0]
		}, []string{"CustomGradient", "gradient for input 0 has shape ()", "(2, 3)"}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
					out := c.build(b, v[0], v[1])
					if b.Err() == nil {
						return []backend.Value{out}, nil
					}
					return nil, b.Err()
				}, []backendtest.Array{x, y})
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
