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

// SGDStep writes p - lr·g into dst, plain SGD's update, in one pass on
// every core when long enough; dst may be p. The product is rounded
// before the difference (no fused multiply-add), so the values are those
// of ScaleInto then Sub.
func SGDStep[T float32 | float64](dst, p, g []T, lr T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) {
		d, x, y := dst[lo:hi], p[lo:hi], g[lo:hi]
		for i := range d {
			d[i] = x[i] - T(y[i]*lr)
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
