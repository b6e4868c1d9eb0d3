package utils

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras"
)

// Normalize divides x by its norm of the given order along axis (a
// negative axis counts from the end), keras.utils.normalize on an array;
// a zero norm leaves its values as they are. Orders 1, 2 (Keras's
// default) and math.Inf(1) are taken.
func Normalize(x keras.Array, axis int, order float64) (keras.Array, error) {
	r := len(x.Shape)
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis >= r {
		return keras.Array{}, fmt.Errorf("Normalize: axis out of range for an array of shape %v", x.Shape)
	}
	if order != 1 && order != 2 && !math.IsInf(order, 1) {
		return keras.Array{}, fmt.Errorf("Normalize: order %v: use 1, 2 or math.Inf(1)", order)
	}
	inner := 1
	for _, d := range x.Shape[axis+1:] {
		inner *= d
	}
	n := x.Shape[axis]
	out := keras.Array{Shape: append([]int(nil), x.Shape...), Data: make([]float32, len(x.Data))}
	for base := 0; base < len(x.Data); base += n * inner {
		for k := range inner {
			norm := 0.0
			for i := range n {
				a := math.Abs(float64(x.Data[base+i*inner+k]))
				switch {
				case order == 1:
					norm += a
				case order == 2:
					norm += a * a
				default:
					norm = math.Max(norm, a)
				}
			}
			if order == 2 {
				norm = math.Sqrt(norm)
			}
			if norm == 0 {
				norm = 1
			}
			for i := range n {
				j := base + i*inner + k
				out.Data[j] = float32(float64(x.Data[j]) / norm)
			}
		}
	}
	return out, nil
}
