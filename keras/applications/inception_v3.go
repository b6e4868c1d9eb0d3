package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// inceptionV3Weights are inception_v3.py's files.
var inceptionV3Weights = imagenetWeights{network: "InceptionV3",
	top: tfApplications + "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels.h5", topHash: "9a0d58056eeedaa3f26cb7ebd46da564",
	notop: tfApplications + "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: "bcbd6486424b2319ff4ef7d526e38f63"}

// autoNames gives layers Keras's automatic names, in the order Keras
// creates them in a fresh session: "conv2d", "conv2d_1", ...
type autoNames map[string]int

func (a autoNames) next(base string) string {
	n := a[base]
	a[base] = n + 1
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, n)
}

// inception builds InceptionV3 with Keras's layer names.
type inception struct{ names autoNames }

// convBN is Keras's conv2d_bn: a convolution without bias, a batch
// normalization without scale, and a ReLU, automatically named.
func (b inception) convBN(x *layers.KerasTensor, filters, rows, cols, stride int, padding string) *layers.KerasTensor {
	x = layers.Apply(layers.Named(b.names.next("conv2d"), &layers.Conv2D{
		Filters: filters, KernelSize: [2]int{rows, cols}, Strides: [2]int{stride, stride}, Padding: padding, NoBias: true,
	}), x)
	x = layers.Apply(layers.Named(b.names.next("batch_normalization"), &layers.BatchNormalization{Axis: 3, NoScale: true}), x)
	return layers.Apply(layers.Named(b.names.next("activation"), &layers.Activation{Fn: "relu"}), x)
}

func (b inception) conv(x *layers.KerasTensor, filters, rows, cols int) *layers.KerasTensor {
	return b.convBN(x, filters, rows, cols, 1, "same")
}

func (b inception) maxPool(x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(b.names.next("max_pooling2d"), &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}}), x)
}

func (b inception) avgPool(x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(b.names.next("average_pooling2d"), &layers.AveragePooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{1, 1}, Padding: "same"}), x)
}

func concat(name string, xs ...*layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.Concatenate{Axis: 3}), xs...)
}

// InceptionV3 returns the network of Szegedy et al. (2015), as
// keras.applications.InceptionV3 builds it: 23,851,784 parameters with
// the top, for 299x299x3 images (the default input; at least 75x75). Its
// input is expected as InceptionV3PreprocessInput leaves it (scaled to
// [-1, 1]).
func InceptionV3(o Options) (*keras.Model, error) {
	shape, err := o.imageShape(299, 75, []int{299})
	if err != nil {
		return nil, fmt.Errorf("inception_v3: %w", err)
	}
	b := inception{names: autoNames{}}
	in := layers.Input(shape...)
	x := b.convBN(in, 32, 3, 3, 2, "valid")
	x = b.convBN(x, 32, 3, 3, 1, "valid")
	x = b.conv(x, 64, 3, 3)
	x = b.maxPool(x)
	x = b.convBN(x, 80, 1, 1, 1, "valid")
	x = b.convBN(x, 192, 3, 3, 1, "valid")
	x = b.maxPool(x)

	// mixed0 to mixed2: 35x35.
	for i, pool := range []int{32, 64, 64} {
		b1 := b.conv(x, 64, 1, 1)
		b5 := b.conv(b.conv(x, 48, 1, 1), 64, 5, 5)
		b3 := b.conv(b.conv(b.conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
		bp := b.conv(b.avgPool(x), pool, 1, 1)
		x = concat(fmt.Sprintf("mixed%d", i), b1, b5, b3, bp)
	}
	// mixed3: down to 17x17.
	b3 := b.convBN(x, 384, 3, 3, 2, "valid")
	b3d := b.convBN(b.conv(b.conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, 2, "valid")
	x = concat("mixed3", b3, b3d, b.maxPool(x))
	// mixed4 to mixed7: 17x17 with factorized 7x7 convolutions.
	for i, f := range []int{128, 160, 160, 192} {
		b1 := b.conv(x, 192, 1, 1)
		b7 := b.conv(b.conv(b.conv(x, f, 1, 1), f, 1, 7), 192, 7, 1)
		b7d := b.conv(x, f, 1, 1)
		b7d = b.conv(b7d, f, 7, 1)
		b7d = b.conv(b7d, f, 1, 7)
		b7d = b.conv(b7d, f, 7, 1)
		b7d = b.conv(b7d, 192, 1, 7)
		bp := b.conv(b.avgPool(x), 192, 1, 1)
		x = concat(fmt.Sprintf("mixed%d", i+4), b1, b7, b7d, bp)
	}
	// mixed8: down to 8x8.
	b3 = b.convBN(b.conv(x, 192, 1, 1), 320, 3, 3, 2, "valid")
	b7 := b.conv(b.conv(b.conv(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
	b7 = b.convBN(b7, 192, 3, 3, 2, "valid")
	x = concat("mixed8", b3, b7, b.maxPool(x))
	// mixed9 and mixed10: 8x8 with expanded filter banks.
	for i := range 2 {
		b1 := b.conv(x, 320, 1, 1)
		b3 := b.conv(x, 384, 1, 1)
		b3 = concat(fmt.Sprintf("mixed9_%d", i), b.conv(b3, 384, 1, 3), b.conv(b3, 384, 3, 1))
		b3d := b.conv(b.conv(x, 448, 1, 1), 384, 3, 3)
		b3d = concat(b.names.next("concatenate"), b.conv(b3d, 384, 1, 3), b.conv(b3d, 384, 3, 1))
		bp := b.conv(b.avgPool(x), 192, 1, 1)
		x = concat(fmt.Sprintf("mixed%d", 9+i), b1, b3, b3d, bp)
	}
	x = o.classifier(x, "", "")
	return o.model(in, x, "inception_v3", inceptionV3Weights)
}
