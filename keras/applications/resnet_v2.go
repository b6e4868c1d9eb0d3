package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// ResNet50V2 returns the pre-activation residual network of He et al.
// (2016), as keras.applications.ResNet50V2 builds it: 25,613,800
// parameters with the top. Its input is expected as Keras's
// resnet_v2.preprocess_input leaves it (scaled to [-1, 1]).
func ResNet50V2(o Options) (*keras.Model, error) {
	return resNet(o, "resnet50v2", true, []stage{{64, 3, 2}, {128, 4, 2}, {256, 6, 2}, {512, 3, 1}})
}

// ResNet101V2 returns keras.applications.ResNet101V2.
func ResNet101V2(o Options) (*keras.Model, error) {
	return resNet(o, "resnet101v2", true, []stage{{64, 3, 2}, {128, 4, 2}, {256, 23, 2}, {512, 3, 1}})
}

// ResNet152V2 returns keras.applications.ResNet152V2.
func ResNet152V2(o Options) (*keras.Model, error) {
	return resNet(o, "resnet152v2", true, []stage{{64, 3, 2}, {128, 8, 2}, {256, 36, 2}, {512, 3, 1}})
}

// stackV2 is Keras's stack_residual_blocks_v2: a block with a projection
// shortcut, identity blocks, and a last block with the stage's stride.
func stackV2(x *layers.KerasTensor, s stage, name string) *layers.KerasTensor {
	x = blockV2(x, s.filters, 1, true, name+"_block1")
	for i := 2; i < s.blocks; i++ {
		x = blockV2(x, s.filters, 1, false, fmt.Sprintf("%s_block%d", name, i))
	}
	return blockV2(x, s.filters, s.stride, false, fmt.Sprintf("%s_block%d", name, s.blocks))
}

// blockV2 is Keras's residual_block_v2: batch normalization and ReLU
// before the convolutions, and a strided shortcut by a 1x1 max pooling
// (which Keras leaves unnamed).
func blockV2(x *layers.KerasTensor, filters, stride int, convShortcut bool, name string) *layers.KerasTensor {
	preact := batchNorm(name+"_preact_bn", x)
	preact = relu(name+"_preact_relu", preact)
	shortcut := x
	switch {
	case convShortcut:
		shortcut = conv(name+"_0_conv", 4*filters, 1, stride, "valid", true, preact)
	case stride > 1:
		shortcut = layers.Apply(&layers.MaxPooling2D{PoolSize: [2]int{1, 1}, Strides: [2]int{stride, stride}}, x)
	}
	x = conv(name+"_1_conv", filters, 1, 1, "valid", false, preact)
	x = batchNorm(name+"_1_bn", x)
	x = relu(name+"_1_relu", x)
	x = layers.Apply(layers.Named(name+"_2_pad", &layers.ZeroPadding2D{Padding: [2][2]int{{1, 1}, {1, 1}}}), x)
	x = conv(name+"_2_conv", filters, 3, stride, "valid", false, x)
	x = batchNorm(name+"_2_bn", x)
	x = relu(name+"_2_relu", x)
	x = conv(name+"_3_conv", 4*filters, 1, 1, "valid", true, x)
	return layers.Apply(layers.Named(name+"_out", &layers.Add{}), shortcut, x)
}
