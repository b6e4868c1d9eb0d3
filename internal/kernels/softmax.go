package kernels

import "math"

// SoftmaxRows writes softmax (or log-softmax) of each row of x into y,
// subtracting the row's maximum first.
func SoftmaxRows[T float32 | float64](y, x []T, width int, log bool) {
	parallelRows(len(x)/width, width, func(lo, hi int) { softmaxRows(y[lo*width:hi*width], x[lo*width:hi*width], width, log) })
}

func softmaxRows[T float32 | float64](y, x []T, width int, log bool) {
	if y32, ok := any(y).([]float32); ok {
		x32 := any(x).([]float32)
		for r := 0; r < len(x); r += width {
			softmaxRow32(y32[r:r+width], x32[r:r+width], log)
		}
		return
	}
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

// softmaxRow32 writes the softmax (or log-softmax) of row into out in
// float32: e^(x - max) by exp32, summed in float64 in 8 lanes (value i
// of the leading whole blocks of 8 into lane i mod 8, then the lanes in
// order, then the rest), then scaled by 1/sum rounded to float32. With
// AVX2 the leading blocks run in the vector kernels, which compute the
// same values to the bit.
func softmaxRow32(out, row []float32, log bool) {
	n8 := len(row) &^ 7
	vector := haveAVX2 && n8 > 0
	top := row[0]
	if vector {
		var lanes [8]float32
		maxAVX(&row[0], n8/8, &lanes)
		for _, v := range lanes {
			top = max(top, v)
		}
		row := row[n8:]
		for _, v := range row {
			top = max(top, v)
		}
	} else {
		for _, v := range row {
			top = max(top, v)
		}
	}
	var sums [8]float64
	if vector {
		expSumAVX(&row[0], &out[0], n8/8, top, &sums)
	} else {
		for i, v := range row[:n8] {
			e := exp32(v - top)
			out[i] = e
			sums[i%8] += float64(e)
		}
	}
	sum := 0.0
	for _, s := range sums {
		sum += s
	}
	for i, v := range row[n8:] {
		e := exp32(v - top)
		out[n8+i] = e
		sum += float64(e)
	}
	if log {
		ls := math.Log(sum)
		for i, v := range row {
			out[i] = float32(float64(v-top) - ls)
		}
		return
	}
	inv := float32(1 / sum)
	rest := out
	if vector {
		scaleAVX(&out[0], n8/8, inv)
		rest = out[n8:]
	}
	for i := range rest {
		rest[i] *= inv
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
	if dx32, ok := any(dx).([]float32); ok && !log {
		y32, g32 := any(y).([]float32), any(g).([]float32)
		for r := 0; r < len(y); r += width {
			softmaxGradRow32(dx32[r:r+width], y32[r:r+width], g32[r:r+width])
		}
		return
	}
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

// softmaxGradRow32 writes softmax's input gradient y·(g - Σ g·y) for one
// float32 row: each g·y rounded to float32 and summed in float64 in 8
// lanes (value i of the leading whole blocks of 8 into lane i mod 8,
// then the lanes in order, then the rest), each result computed in
// float64 and rounded once. With AVX2 the leading blocks run in the
// vector kernels, which compute the same values to the bit.
func softmaxGradRow32(dx, y, g []float32) {
	n8 := len(y) &^ 7
	vector := haveAVX2 && n8 > 0
	g = g[:len(y)]
	dx = dx[:len(y)]
	var sums [8]float64
	if vector {
		dotLanesAVX(&y[0], &g[0], n8/8, &sums)
	} else {
		for i, v := range y[:n8] {
			sums[i%8] += float64(g[i] * v)
		}
	}
	sum := 0.0
	for _, s := range sums {
		sum += s
	}
	for i, v := range y[n8:] {
		sum += float64(g[n8+i] * v)
	}
	rest := 0
	if vector {
		softmaxGradAVX(&y[0], &g[0], &dx[0], n8/8, sum)
		rest = n8
	}
	for i := rest; i < len(y); i++ {
		dx[i] = float32(float64(y[i]) * (float64(g[i]) - sum))
	}
}
