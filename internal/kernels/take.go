package kernels

import "fmt"

// TakeAlongRows writes into dst[i] the value of row i of x (rows of n
// values) at the column idx[i] names: x[i*n + idx[i]], what a sparse
// cross-entropy needs of the predictions. An index outside [0, n) is an
// error naming it.
func TakeAlongRows[T float32 | float64, I int32 | float32 | float64](dst, x []T, idx []I, n int) error {
	for i, v := range idx {
		c, err := column(v, n)
		if err != nil {
			return err
		}
		dst[i] = x[i*n+c]
	}
	return nil
}

// PutAlongRows is TakeAlongRows's adjoint: dst (rows of n values) is
// zero but for g[i] at row i's column idx[i]. dst is cleared on every
// core, as it is as large as the predictions.
func PutAlongRows[T float32 | float64, I int32 | float32 | float64](dst, g []T, idx []I, n int) error {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) { clear(dst[lo:hi]) })
	for i, v := range idx {
		c, err := column(v, n)
		if err != nil {
			return err
		}
		dst[i*n+c] = g[i]
	}
	return nil
}

// column returns the column an index names, or an error if it is outside
// [0, n) (or not a number).
func column[I int32 | float32 | float64](v I, n int) (int, error) {
	c, err := tableRow(v, n)
	if err != nil {
		return 0, fmt.Errorf("class index %v is outside the %d classes [0, %d)", v, n, n)
	}
	return c, nil
}
