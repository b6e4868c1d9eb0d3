package kernels

// AddRows adds bias to every row of x (rows of len(bias) values).
func AddRows[T float32 | float64](x, bias, dst []T) {
	n := len(bias)
	ParallelChunks(len(dst)/n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, out := x[r*n:(r+1)*n], dst[r*n:(r+1)*n]
			for i, v := range row {
				out[i] = v + bias[i]
			}
		}
	})
}

// SumRows adds up the rows of g (rows of len(dst) values) into dst.
func SumRows[T float32 | float64](g, dst []T) {
	n := len(dst)
	clear(dst)
	for r := 0; r < len(g)/n; r++ {
		for i, v := range g[r*n : (r+1)*n] {
			dst[i] += v
		}
	}
}
