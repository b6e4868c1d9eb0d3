package kernels

import "fmt"

// ArgMaxRows writes, for each row of x (len(out) rows of equal length),
// the index of its largest value (the first one on ties) into out.
func ArgMaxRows[T float32 | float64](x, out []T) {
	n := len(x) / len(out)
	for r := range out {
		row := x[r*n : (r+1)*n]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		out[r] = T(best)
	}
}

// OneHotRows writes the one-hot rows of depth columns for the class
// indices idx into hot (len(idx)·depth values). An index that is not a
// whole number in [0, depth) is an error naming it and its position.
func OneHotRows[T float32 | float64](idx, hot []T, depth int) error {
	clear(hot)
	for i, v := range idx {
		c := int(v)
		if c < 0 || c >= depth || T(c) != v {
			return fmt.Errorf("label %v at position %d is not a class index in [0, %d)", v, i, depth)
		}
		hot[i*depth+c] = 1
	}
	return nil
}
