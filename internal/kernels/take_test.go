package kernels

import (
	"strings"
	"testing"
)

// TakeAlongRows picks one value per row, PutAlongRows puts the gradient
// back there (and zeros elsewhere, over a dirty buffer), and an index
// outside the row is an error.
func TestTakeAlongRows(t *testing.T) {
	const rows, n = 3, 4
	x := randoms(rows*n, 11)
	idx := []float32{2, 0, 3.7} // truncated toward zero, as Gather's
	got := make([]float64, rows)
	if err := TakeAlongRows(got, x, idx, n); err != nil {
		t.Fatal(err)
	}
	want := []float64{x[2], x[4], x[11]}
	closeAll(t, "TakeAlongRows", got, want, 0)
	dst := randoms(rows*n, 12)
	if err := PutAlongRows(dst, []float64{1, 2, 3}, idx, n); err != nil {
		t.Fatal(err)
	}
	closeAll(t, "PutAlongRows", dst, []float64{0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 3}, 0)
	for _, bad := range []float32{4, -1} {
		err := TakeAlongRows(got, x, []float32{0, bad, 1}, n)
		if err == nil || !strings.Contains(err.Error(), "outside the 4 classes") {
			t.Fatalf("index %v: err = %v, want one naming the 4 classes", bad, err)
		}
		if err := PutAlongRows(dst, got, []float32{0, bad, 1}, n); err == nil {
			t.Fatalf("PutAlongRows took index %v", bad)
		}
	}
}
