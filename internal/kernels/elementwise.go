package kernels

// Add writes a+b into dst, value by value, on every core when long
// enough; dst may be a or b.
func Add[T float32 | float64](dst, a, b []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		for i := range d {
			d[i] = x[i] + y[i]
		}
	})
}

// Sub writes a - b into dst, on every core when long enough.
func Sub[T float32 | float64](dst, a, b []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		for i := range d {
			d[i] = x[i] - y[i]
		}
	})
}

// Mul writes a*b into dst, value by value, on every core when long enough.
func Mul[T float32 | float64](dst, a, b []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		for i := range d {
			d[i] = x[i] * y[i]
		}
	})
}

// Div writes a/b into dst, value by value, on every core when long enough.
func Div[T float32 | float64](dst, a, b []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		for i := range d {
			d[i] = x[i] / y[i]
		}
	})
}

// ScaleInto writes v*s into dst, on every core when long enough.
func ScaleInto[T float32 | float64](dst, v []T, s T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x := dst[lo:hi], v[lo:hi]
		for i := range d {
			d[i] = x[i] * s
		}
	})
}

// AddRelu writes max(a+b, 0) into dst: Add then ReluForward in one pass,
// with the same values.
func AddRelu[T float32 | float64](dst, a, b []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		for i := range d {
			d[i] = max(T(x[i]+y[i]), 0)
		}
	})
}

// Scale multiplies v by s in place, on every core when long enough.
func Scale[T float32 | float64](v []T, s T) {
	parallelChunks(len(v), minPerWorker, func(lo, hi int) {
		for i := range v[lo:hi] {
			v[lo+i] *= s
		}
	})
}
