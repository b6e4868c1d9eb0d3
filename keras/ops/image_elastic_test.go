package ops_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// ElasticTransform is random, so the golden cases cannot hold it; its
// field is checked through images that show it: channel 0 is each
// pixel's column and channel 1 its row, which bilinear sampling reads
// back exactly inside the image, so out - in is (alpha·dx, alpha·dy).
// With sigma 0.3 the kernel is one tap (int(1.8) | 1): dx and dy are
// normal with standard deviation sigma, and independent; with sigma 1.5
// (a 9×9 kernel) neighbours move together.
func TestElasticTransformField(t *testing.T) {
	const n, h, w = 8, 12, 12
	ramp := backendtest.Array{Shape: backend.Shape{n, h, w, 2}}
	for i := range n * h * w {
		ramp.Data = append(ramp.Data, float64(i%w), float64(i/w%h))
	}
	field := func(t *testing.T, be backend.Backend, alpha, sigma float64) (dx, dy [][]float64) {
		out, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{ops.ElasticTransform(b, v[0], alpha, sigma, ops.ElasticTransformOptions{})}, b.Err()
		}, []backendtest.Array{ramp})
		if err != nil {
			t.Fatal(err)
		}
		for img := range n {
			var fx, fy []float64
			for p := range h * w {
				k := (img*h*w + p) * 2
				fx, fy = append(fx, out[0].Data[k]-ramp.Data[k]), append(fy, out[0].Data[k+1]-ramp.Data[k+1])
			}
			dx, dy = append(dx, fx), append(dy, fy)
		}
		return dx, dy
	}
	inside := func(p int) bool { r, c := p/w, p%w; return r >= 3 && r < h-3 && c >= 3 && c < w-3 }
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		dx, dy := field(t, be, 1, 0.3)
		var xs, ys []float64
		for img := range n {
			for p := range h * w {
				if inside(p) {
					xs, ys = append(xs, dx[img][p]), append(ys, dy[img][p])
				}
			}
		}
		mx, sx := meanStd(xs)
		my, sy := meanStd(ys)
		if math.Abs(mx) > 0.06 || math.Abs(my) > 0.06 || math.Abs(sx-0.3) > 0.05 || math.Abs(sy-0.3) > 0.05 {
			t.Errorf("displacements (%.3f ± %.3f, %.3f ± %.3f), want (0 ± 0.3, 0 ± 0.3)", mx, sx, my, sy)
		}
		if c := correlation(xs, ys); math.Abs(c) > 0.2 {
			t.Errorf("dx and dy correlate by %.2f: want them drawn apart", c)
		}
		// A wider sigma smooths the field: neighbours along a row agree.
		dx, _ = field(t, be, 4, 1.5)
		var a, b []float64
		for img := range n {
			for p := range h * w {
				if inside(p) && inside(p+1) {
					a, b = append(a, dx[img][p]), append(b, dx[img][p+1])
				}
			}
		}
		if c := correlation(a, b); c < 0.7 {
			t.Errorf("neighbouring displacements correlate by %.2f, want a smooth field (above 0.7)", c)
		}
	})
}

func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

func correlation(a, b []float64) float64 {
	ma, sa := meanStd(a)
	mb, sb := meanStd(b)
	c := 0.0
	for i := range a {
		c += (a[i] - ma) * (b[i] - mb)
	}
	return c / float64(len(a)) / (sa * sb)
}
