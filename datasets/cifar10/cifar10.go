package cifar10

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kerasgo/kerasgo/datasets"
	"github.com/kerasgo/kerasgo/keras"
)

// Archive is Keras's CIFAR-10 download, extracted to
// cifar-10-batches-py-target/cifar-10-batches-py.
var Archive = datasets.Remote{
	Name:   "cifar-10-batches-py-target",
	Origin: "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
	Hash:   "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
}

// LoadData returns the training and test images (samples, 32, 32, 3),
// values 0 to 255, and labels (samples, 1), 0 to 9.
func LoadData(ctx context.Context, o datasets.Options) (train, test datasets.Split, err error) {
	dir, err := o.Extracted(ctx, Archive)
	if err != nil {
		return train, test, err
	}
	dir = filepath.Join(dir, "cifar-10-batches-py")
	var xs []keras.Array
	var ys []int
	for i := 1; i <= 5; i++ {
		x, y, err := datasets.LoadCIFARBatch(filepath.Join(dir, fmt.Sprintf("data_batch_%d", i)), "labels")
		if err != nil {
			return train, test, err
		}
		xs, ys = append(xs, x), append(ys, y...)
	}
	x := keras.Array{Shape: []int{len(ys), 32, 32, 3}}
	for _, b := range xs {
		x.Data = append(x.Data, b.Data...)
	}
	tx, ty, err := datasets.LoadCIFARBatch(filepath.Join(dir, "test_batch"), "labels")
	if err != nil {
		return train, test, err
	}
	return datasets.Split{X: x, Y: datasets.LabelColumn(ys)}, datasets.Split{X: tx, Y: datasets.LabelColumn(ty)}, nil
}
