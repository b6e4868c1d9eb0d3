package utils

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras"
)

// InferClasses, given to ToCategorical as numClasses, takes the number
// of classes from the labels: the largest plus one (Keras's
// num_classes=None).
const InferClasses = -1

// maxClasses bounds the number of classes ToCategorical makes rows of.
const maxClasses = 1 << 20

// ToCategorical turns class indices into one-hot rows, like
// keras.utils.to_categorical: y of shape (n) or (n, 1), float (Data) or
// integer (Ints), becomes (n, numClasses). numClasses is the number of
// classes, or InferClasses. A label that is not a whole number in
// [0, numClasses) is an error naming it.
func ToCategorical(y keras.Array, numClasses int) (keras.Array, error) {
	if err := y.Validate("y"); err != nil {
		return keras.Array{}, err
	}
	if y.Strings != nil {
		return keras.Array{}, fmt.Errorf("ToCategorical: y holds strings: give class indices (a StringLookup layer turns strings into them)")
	}
	if len(y.Shape) > 2 || (len(y.Shape) == 2 && y.Shape[1] != 1) {
		return keras.Array{}, fmt.Errorf("ToCategorical: y has shape %v: give class indices of shape (samples,) or (samples, 1)", y.Shape)
	}
	if numClasses != InferClasses && (numClasses < 1 || numClasses > maxClasses) {
		return keras.Array{}, fmt.Errorf("ToCategorical: numClasses is %d: give the number of classes (1 to %d), or utils.InferClasses to take the largest label plus one", numClasses, maxClasses)
	}
	limit := numClasses
	if limit == InferClasses {
		limit = maxClasses
	}
	labels := make([]int, y.Shape[0])
	for i := range labels {
		var v float64
		if y.Ints != nil {
			v = float64(y.Ints[i])
		} else {
			v = float64(y.Data[i])
		}
		if v < 0 || v != math.Trunc(v) || v >= float64(limit) {
			return keras.Array{}, fmt.Errorf("ToCategorical: label %d is %v, not a class index in [0, %d)", i, v, limit)
		}
		labels[i] = int(v)
	}
	if numClasses == InferClasses {
		numClasses = 1
		for _, l := range labels {
			numClasses = max(numClasses, l+1)
		}
	}
	n := len(labels)
	out := keras.Array{Shape: []int{n, numClasses}, Data: make([]float32, n*numClasses)}
	for i, l := range labels {
		out.Data[i*numClasses+l] = 1
	}
	return out, nil
}
