package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// DenseNet121 returns the densely connected network of Huang et al.
// (2017), as keras.applications.DenseNet121 builds it: dense blocks of 6,
// 12, 24 and 16 layers (8,062,504 parameters with the top, for 224x224x3
// images). Its input is expected as DenseNetPreprocessInput leaves it.
func DenseNet121(o Options) (*keras.Model, error) {
	return denseNet(o, "densenet121", [4]int{6, 12, 24, 16})
}

// DenseNet169 returns keras.applications.DenseNet169: blocks of 6, 12, 32
// and 32 layers.
func DenseNet169(o Options) (*keras.Model, error) {
	return denseNet(o, "densenet169", [4]int{6, 12, 32, 32})
}

// DenseNet201 returns keras.applications.DenseNet201: blocks of 6, 12, 48
// and 32 layers.
func DenseNet201(o Options) (*keras.Model, error) {
	return denseNet(o, "densenet201", [4]int{6, 12, 48, 32})
}

// denseNet is Keras's DenseNet(): the stem, four dense blocks with
// transitions between them, and the top or the pooling.
func denseNet(o Options, name string, blocks [4]int) (*keras.Model, error) {
	shape, err := o.imageShape(defaultSize, minSize, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	in := layers.Input(shape...)
	x := layers.Apply(layers.Named("zero_padding2d", &layers.ZeroPadding2D{Padding: [2][2]int{{3, 3}, {3, 3}}}), in)
	x = layers.Apply(layers.Named("conv1_conv", &layers.Conv2D{Filters: 64, KernelSize: [2]int{7, 7}, Strides: [2]int{2, 2}, NoBias: true}), x)
	x = batchNorm("conv1_bn", x)
	x = relu("conv1_relu", x)
	x = layers.Apply(layers.Named("zero_padding2d_1", &layers.ZeroPadding2D{Padding: [2][2]int{{1, 1}, {1, 1}}}), x)
	x = layers.Apply(layers.Named("pool1", &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}}), x)
	for i, n := range blocks {
		x = denseBlock(x, n, fmt.Sprintf("conv%d", i+2))
		if i < 3 {
			x = transitionBlock(x, fmt.Sprintf("pool%d", i+2))
		}
	}
	x = batchNorm("bn", x)
	x = relu("relu", x)
	x = o.classifier(x, "avg_pool", "max_pool")
	return o.model(in, x, name, denseNetWeights[name])
}

// denseBlock is Keras's dense_block: n conv blocks, each adding 32
// channels to its input by concatenation.
func denseBlock(x *layers.KerasTensor, n int, name string) *layers.KerasTensor {
	const growth = 32
	for i := 1; i <= n; i++ {
		b := fmt.Sprintf("%s_block%d", name, i)
		y := batchNorm(b+"_0_bn", x)
		y = relu(b+"_0_relu", y)
		y = layers.Apply(layers.Named(b+"_1_conv", &layers.Conv2D{Filters: 4 * growth, KernelSize: [2]int{1, 1}, NoBias: true}), y)
		y = batchNorm(b+"_1_bn", y)
		y = relu(b+"_1_relu", y)
		y = layers.Apply(layers.Named(b+"_2_conv", &layers.Conv2D{Filters: growth, KernelSize: [2]int{3, 3}, Padding: "same", NoBias: true}), y)
		x = layers.Apply(layers.Named(b+"_concat", &layers.Concatenate{Axis: 3}), x, y)
	}
	return x
}

// transitionBlock is Keras's transition_block: halves the channels with a
// 1x1 convolution and the rows and columns with average pooling.
func transitionBlock(x *layers.KerasTensor, name string) *layers.KerasTensor {
	x = batchNorm(name+"_bn", x)
	x = relu(name+"_relu", x)
	channels := x.Shape()[3]
	x = layers.Apply(layers.Named(name+"_conv", &layers.Conv2D{Filters: channels / 2, KernelSize: [2]int{1, 1}, NoBias: true}), x)
	return layers.Apply(layers.Named(name+"_pool", &layers.AveragePooling2D{PoolSize: [2]int{2, 2}, Strides: [2]int{2, 2}}), x)
}
