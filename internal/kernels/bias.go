package kernels

// AddRows adds bias to every row of x (rows of len(bias) values).
func AddRows[T float32 | float64](x, bias, dst []T) {
	n := len(bias)
	parallelRows(len(dst)/n, n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, out := x[r*n:(r+1)*n], dst[r*n:(r+1)*n]
			for i, v := range row {
				out[i] = v + bias[i]
			}
		}
	})
}

// SumRows adds up the rows of g (rows of len(dst) values) into dst. The
// columns are split among the workers, so each sum adds its rows in order
// (the result does not depend on the number of workers).
func SumRows[T float32 | float64](g, dst []T) {
	n := len(dst)
	clear(dst)
	rows := len(g) / n
	cols := func(lo, hi int) {
		for r := 0; r < rows; r++ {
			row := g[r*n : (r+1)*n]
			for i := lo; i < hi; i++ {
				dst[i] += row[i]
			}
		}
	}
	// Each share of columns must hold enough values, and a cache line's
	// worth of columns (16 float32s) at least. One share per core: each
	// share reads every row, so narrower shares read more cache lines
	// for the same sums (8 shares of 32 columns made the LSTM's bias
	// gradient 4 times slower than 2 of 128).
	parallelChunks(n, max(16, minPerWorker/max(rows, 1), perCore(n)), cols)
}
