package datasets

import (
	"fmt"
	"os"

	"github.com/kerasgo/kerasgo/internal/npy"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/nlpodyssey/gopickle/types"
)

// LoadCIFARBatch reads one of CIFAR's pickled batches, as Keras's
// cifar.load_batch: its "data" (samples, 3072: 3 planes of 32×32)
// becomes images (samples, 32, 32, 3) channels last with values 0 to
// 255, and labelKey ("labels", "fine_labels", "coarse_labels") the
// labels.
func LoadCIFARBatch(path, labelKey string) (keras.Array, []int, error) {
	f, err := os.Open(path)
	if err != nil {
		return keras.Array{}, nil, err
	}
	defer f.Close()
	v, err := npy.Unpickle(f)
	if err != nil {
		return keras.Array{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	d, ok := v.(*types.Dict)
	if !ok {
		return keras.Array{}, nil, fmt.Errorf("%s holds a %T, not CIFAR's dict", path, v)
	}
	var data *npy.NDArray
	var labels *types.List
	for _, e := range *d {
		var key string
		switch k := e.Key.(type) {
		case string:
			key = k
		case []byte:
			key = string(k)
		}
		switch key {
		case "data":
			data, _ = e.Value.(*npy.NDArray)
		case labelKey:
			labels, _ = e.Value.(*types.List)
		}
	}
	if data == nil || labels == nil {
		return keras.Array{}, nil, fmt.Errorf("%s has no data array or no %q list", path, labelKey)
	}
	a, err := data.Array()
	if err != nil {
		return keras.Array{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(a.Shape) != 2 || a.Shape[1] != 3*32*32 || labels.Len() != a.Shape[0] {
		return keras.Array{}, nil, fmt.Errorf("%s: data %v and %d labels, want (n, 3072) and n", path, a.Shape, labels.Len())
	}
	n := a.Shape[0]
	x := keras.Array{Shape: []int{n, 32, 32, 3}, Data: make([]float32, n*3072)}
	for i := range n {
		for c := range 3 {
			for p := range 1024 {
				x.Data[i*3072+p*3+c] = float32(a.Data[i*3072+c*1024+p])
			}
		}
	}
	ys := make([]int, n)
	for i := range ys {
		y, ok := labels.Get(i).(int)
		if !ok {
			return keras.Array{}, nil, fmt.Errorf("%s: label %d is a %T, not an integer", path, i, labels.Get(i))
		}
		ys[i] = y
	}
	return x, ys, nil
}

// LabelColumn is labels as a (samples, 1) array, the shape Keras's CIFAR
// loaders give them.
func LabelColumn(labels []int) keras.Array {
	y := keras.Array{Shape: []int{len(labels), 1}, Data: make([]float32, len(labels))}
	for i, l := range labels {
		y.Data[i] = float32(l)
	}
	return y
}
