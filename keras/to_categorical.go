package keras

import (
	"fmt"
	"math"
)

// ToCategorical turns class indices into one-hot rows, like
// keras.utils.to_categorical: y of shape (n) or (n, 1) becomes (n,
// numClasses). numClasses 0 means the largest index plus one. A label that
// is not a whole number in [0, numClasses) is an error naming it.
func ToCategorical(y Array, numClasses int) (Array, error) {
	if err := y.check("y"); err != nil {
		return Array{}, err
	}
	if len(y.Shape) > 2 || (len(y.Shape) == 2 && y.Shape[1] != 1) {
		return Array{}, fmt.Errorf("ToCategorical: y has shape %v: give class indices of shape (samples,) or (samples, 1)", y.Shape)
	}
	if numClasses < 0 {
		return Array{}, fmt.Errorf("ToCategorical: numClasses must be positive (or 0 to infer it), got %d", numClasses)
	}
	const maxClasses = 1 << 20
	limit := numClasses
	if limit == 0 {
		limit = maxClasses
	}
	for i, v := range y.Data {
		if v < 0 || v != float32(math.Trunc(float64(v))) || v >= float32(limit) {
			return Array{}, fmt.Errorf("ToCategorical: label %d is %v, not a class index in [0, %d)", i, v, limit)
		}
	}
	if numClasses == 0 {
		for _, v := range y.Data {
			numClasses = max(numClasses, int(v)+1)
		}
	}
	n := y.Shape[0]
	out := Array{Shape: []int{n, numClasses}, Data: make([]float32, n*numClasses)}
	for i, v := range y.Data {
		out.Data[i*numClasses+int(v)] = 1
	}
	return out, nil
}
