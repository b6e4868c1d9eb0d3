package kernels

import "math"

// SoftmaxRows writes softmax (or log-softmax) of each row of x into y,
// subtracting the row's maximum first.
func SoftmaxRows[T float32 | float64](y, x []T, width int, log bool) {
	parallelRows(len(x)/width, width, func(lo, hi int) { softmaxRows(y[lo*width:hi*width], x[lo*width:hi*width], width, log) })
}

func softmaxRows[T float32 | float64](y, x []T, width int, log bool) {
	for r := 0; r < len(x); r += width {
		row, out := x[r:r+width], y[r:r+width]
		top := row[0]
		for _, v := range row[1:] {
			top = max(top, v)
		}
		sum := 0.0
		for i, v := range row {
			e := expFor[T](float64(v - top))
			out[i] = T(e)
			sum += e
		}
		if log {
			ls := math.Log(sum)
			for i, v := range row {
				out[i] = T(float64(v-top) - ls)
			}
			continue
		}
		inv := 1 / sum
		for i := range out {
			out[i] = T(float64(out[i]) * inv)
		}
	}
}

// SoftmaxGradRows writes the input's gradient given the output y and its
// gradient g: y*(g - sum(g*y)) for softmax, g - exp(y)*sum(g) for
// log-softmax.
func SoftmaxGradRows[T float32 | float64](dx, y, g []T, width int, log bool) {
	parallelRows(len(y)/width, width, func(lo, hi int) {
		softmaxGradRows(dx[lo*width:hi*width], y[lo*width:hi*width], g[lo*width:hi*width], width, log)
	})
}

func softmaxGradRows[T float32 | float64](dx, y, g []T, width int, log bool) {
	for r := 0; r < len(y); r += width {
		yr, gr, out := y[r:r+width], g[r:r+width], dx[r:r+width]
		sum := 0.0
		for i := range yr {
			if log {
				sum += float64(gr[i])
			} else {
				sum += float64(gr[i] * yr[i])
			}
		}
		for i := range yr {
			if log {
				out[i] = T(float64(gr[i]) - expFor[T](float64(yr[i]))*sum)
			} else {
				out[i] = T(float64(yr[i]) * (float64(gr[i]) - sum))
			}
		}
	}
}
