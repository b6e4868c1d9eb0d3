package example

import (
	"context"

	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/keras"
)

// FashionMNIST loads o.Train training and o.Test test images of
// Fashion-MNIST as (n, 28, 28, 1) arrays in [0, 1] with their class
// labels (n), from Debian's dataset-fashion-mnist package or the kerasgo
// cache (mnist.ErrNotFound when neither has them).
func FashionMNIST(ctx context.Context, o Options) (x, y, xt, yt keras.Array, err error) {
	data, err := mnist.Load(ctx, "fashion", mnist.Options{})
	if err != nil {
		return x, y, xt, yt, err
	}
	n, nt := min(o.Train, data.Train.Count), min(o.Test, data.Test.Count)
	x = keras.Array{Shape: []int{n, 28, 28, 1}, Data: data.Train.ImagesFloat32()[:n*28*28]}
	y = keras.Array{Shape: []int{n}, Data: data.Train.LabelsFloat32()[:n]}
	xt = keras.Array{Shape: []int{nt, 28, 28, 1}, Data: data.Test.ImagesFloat32()[:nt*28*28]}
	yt = keras.Array{Shape: []int{nt}, Data: data.Test.LabelsFloat32()[:nt]}
	return x, y, xt, yt, nil
}
