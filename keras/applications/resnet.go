package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// bnEpsilon is the BatchNormalization epsilon of Keras's ResNets.
const bnEpsilon = 1.001e-5

// ResNet50 returns the 50-layer residual network of He et al. (2015), as
// keras.applications.ResNet50 builds it: 25,636,712 parameters with the
// top, for 224x224x3 images. Its input is expected as Keras's
// resnet50.preprocess_input leaves it (BGR, each channel centred on
// ImageNet's mean, not scaled).
func ResNet50(o Options) (*keras.Model, error) {
	return resNet(o, "resnet50", false, []stage{{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}})
}

// ResNet101 returns keras.applications.ResNet101: ResNet50 with 23
// blocks in its fourth stage.
func ResNet101(o Options) (*keras.Model, error) {
	return resNet(o, "resnet101", false, []stage{{64, 3, 1}, {128, 4, 2}, {256, 23, 2}, {512, 3, 2}})
}

// ResNet152 returns keras.applications.ResNet152: 8 blocks in the third
// stage and 36 in the fourth.
func ResNet152(o Options) (*keras.Model, error) {
	return resNet(o, "resnet152", false, []stage{{64, 3, 1}, {128, 8, 2}, {256, 36, 2}, {512, 3, 2}})
}

// stage is one stack of residual blocks: the bottleneck's filters, the
// number of blocks, and the stride of the stack's first block (Keras's
// stride1; in ResNetV2 the stride of its last block).
type stage struct{ filters, blocks, stride int }

// resNet is Keras's ResNet(): the stem, the stages (conv2 to conv5), and
// the top or the pooling. preact selects ResNetV2's pre-activation blocks.
func resNet(o Options, name string, preact bool, stages []stage) (*keras.Model, error) {
	shape, err := o.imageShape(defaultSize, minSize, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	in := layers.Input(shape...)
	x := layers.Apply(layers.Named("conv1_pad", &layers.ZeroPadding2D{Padding: [2][2]int{{3, 3}, {3, 3}}}), in)
	x = layers.Apply(layers.Named("conv1_conv", &layers.Conv2D{Filters: 64, KernelSize: [2]int{7, 7}, Strides: [2]int{2, 2}}), x)
	if !preact {
		x = batchNorm("conv1_bn", x)
		x = relu("conv1_relu", x)
	}
	x = layers.Apply(layers.Named("pool1_pad", &layers.ZeroPadding2D{Padding: [2][2]int{{1, 1}, {1, 1}}}), x)
	x = layers.Apply(layers.Named("pool1_pool", &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}}), x)
	for i, s := range stages {
		stack := fmt.Sprintf("conv%d", i+2)
		if preact {
			x = stackV2(x, s, stack)
		} else {
			x = stackV1(x, s, stack)
		}
	}
	if preact {
		x = batchNorm("post_bn", x)
		x = relu("post_relu", x)
	}
	x = o.classifier(x, "avg_pool", "max_pool")
	return o.model(in, x, name, resnetWeights[name])
}

// stackV1 is Keras's stack_residual_blocks_v1: a block with a projection
// shortcut, then blocks with identity shortcuts.
func stackV1(x *layers.KerasTensor, s stage, name string) *layers.KerasTensor {
	x = blockV1(x, s.filters, s.stride, true, name+"_block1")
	for i := 2; i <= s.blocks; i++ {
		x = blockV1(x, s.filters, 1, false, fmt.Sprintf("%s_block%d", name, i))
	}
	return x
}

// blockV1 is Keras's residual_block_v1: 1x1, 3x3 and 1x1 convolutions,
// each batch-normalized, added to the shortcut, then ReLU.
func blockV1(x *layers.KerasTensor, filters, stride int, convShortcut bool, name string) *layers.KerasTensor {
	shortcut := x
	if convShortcut {
		shortcut = conv(name+"_0_conv", 4*filters, 1, stride, "valid", true, x)
		shortcut = batchNorm(name+"_0_bn", shortcut)
	}
	x = conv(name+"_1_conv", filters, 1, stride, "valid", true, x)
	x = batchNorm(name+"_1_bn", x)
	x = relu(name+"_1_relu", x)
	x = conv(name+"_2_conv", filters, 3, 1, "same", true, x)
	x = batchNorm(name+"_2_bn", x)
	x = relu(name+"_2_relu", x)
	x = conv(name+"_3_conv", 4*filters, 1, 1, "valid", true, x)
	x = batchNorm(name+"_3_bn", x)
	x = layers.Apply(layers.Named(name+"_add", &layers.Add{}), shortcut, x)
	return relu(name+"_out", x)
}

// conv is a square Conv2D with Keras's default initializers.
func conv(name string, filters, size, stride int, padding string, bias bool, x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.Conv2D{
		Filters: filters, KernelSize: [2]int{size, size}, Strides: [2]int{stride, stride},
		Padding: padding, NoBias: !bias,
	}), x)
}

// batchNorm is the ResNets' BatchNormalization over the channels.
func batchNorm(name string, x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.BatchNormalization{Axis: 3, Epsilon: bnEpsilon}), x)
}

// relu is an Activation("relu") layer.
func relu(name string, x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.Activation{Fn: "relu"}), x)
}
