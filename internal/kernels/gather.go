package kernels

import (
	"fmt"
	"math"
)

// tableRow returns the table row an index names, or an error if it is outside
// [0, rows) (or not a number).
func tableRow[I int32 | float32 | float64](v I, rows int) (int, error) {
	f := math.Trunc(float64(v))
	if !(f >= 0 && f < float64(rows)) {
		return 0, fmt.Errorf("index %v is outside the table's %d rows [0, %d)", v, rows, rows)
	}
	return int(f), nil
}

// GatherRows copies the table rows (of width values) that idx names into
// dst, in order; an index outside [0, rows) is an error naming it.
func GatherRows[T float32 | float64, I int32 | float32 | float64](dst, table []T, idx []I, rows, width int) error {
	for i, v := range idx {
		r, err := tableRow(v, rows)
		if err != nil {
			return err
		}
		copy(dst[i*width:(i+1)*width], table[r*width:(r+1)*width])
	}
	return nil
}

// ScatterAddRows is GatherRows's adjoint: dst (the table's shape) gets
// each row of grad added to the row its index names.
func ScatterAddRows[T float32 | float64, I int32 | float32 | float64](dst, grad []T, idx []I, rows, width int) error {
	clear(dst)
	for i, v := range idx {
		r, err := tableRow(v, rows)
		if err != nil {
			return err
		}
		d, g := dst[r*width:(r+1)*width], grad[i*width:(i+1)*width]
		for j := range d {
			d[j] += g[j]
		}
	}
	return nil
}
