package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// inceptionResNetV2Weights are inception_resnet_v2.py's files.
var inceptionResNetV2Weights = imagenetWeights{network: "InceptionResNetV2",
	top: tfApplications + "inception_resnet_v2/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5", topHash: "e693bd0210a403b3192acc6073ad2e96",
	notop: tfApplications + "inception_resnet_v2/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: "d19885ff4a710c122648d3b5c3b684e4"}

// InceptionResNetV2 returns the network of Szegedy et al. (2017), as
// keras.applications.InceptionResNetV2 builds it: 55,873,736 parameters
// with the top, for 299x299x3 images (the default input; at least
// 75x75). Its input is expected as InceptionResNetV2PreprocessInput
// leaves it (scaled to [-1, 1]).
func InceptionResNetV2(o Options) (*keras.Model, error) {
	shape, err := o.imageShape(299, 75, []int{299})
	if err != nil {
		return nil, fmt.Errorf("inception_resnet_v2: %w", err)
	}
	b := inceptionResNet{names: autoNames{}}
	in := layers.Input(shape...)
	x := b.convBN(in, 32, 3, 3, 2, "valid", "")
	x = b.convBN(x, 32, 3, 3, 1, "valid", "")
	x = b.conv(x, 64, 3, 3)
	x = b.maxPool(x)
	x = b.convBN(x, 80, 1, 1, 1, "valid", "")
	x = b.convBN(x, 192, 3, 3, 1, "valid", "")
	x = b.maxPool(x)

	// Mixed 5b (Inception-A block): 35x35x320.
	b0 := b.conv(x, 96, 1, 1)
	b1 := b.conv(b.conv(x, 48, 1, 1), 64, 5, 5)
	b2 := b.conv(b.conv(b.conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
	bp := b.conv(layers.Apply(layers.Named(b.names.next("average_pooling2d"), &layers.AveragePooling2D{
		PoolSize: [2]int{3, 3}, Strides: [2]int{1, 1}, Padding: "same",
	}), x), 64, 1, 1)
	x = concat("mixed_5b", b0, b1, b2, bp)
	for i := 1; i <= 10; i++ {
		x = b.block(x, 0.17, "block35", i, true)
	}

	// Mixed 6a (Reduction-A block): 17x17x1088.
	b0 = b.convBN(x, 384, 3, 3, 2, "valid", "")
	b1 = b.convBN(b.conv(b.conv(x, 256, 1, 1), 256, 3, 3), 384, 3, 3, 2, "valid", "")
	x = concat("mixed_6a", b0, b1, b.maxPool(x))
	for i := 1; i <= 20; i++ {
		x = b.block(x, 0.1, "block17", i, true)
	}

	// Mixed 7a (Reduction-B block): 8x8x2080.
	b0 = b.convBN(b.conv(x, 256, 1, 1), 384, 3, 3, 2, "valid", "")
	b1 = b.convBN(b.conv(x, 256, 1, 1), 288, 3, 3, 2, "valid", "")
	b2 = b.convBN(b.conv(b.conv(x, 256, 1, 1), 288, 3, 3), 320, 3, 3, 2, "valid", "")
	x = concat("mixed_7a", b0, b1, b2, b.maxPool(x))
	for i := 1; i <= 9; i++ {
		x = b.block(x, 0.2, "block8", i, true)
	}
	x = b.block(x, 1.0, "block8", 10, false)
	x = b.convBN(x, 1536, 1, 1, 1, "same", "conv_7b")
	x = o.classifier(x, "", "")
	return o.model(in, x, "inception_resnet_v2", inceptionResNetV2Weights)
}

// inceptionResNet builds InceptionResNetV2 with Keras's layer names.
type inceptionResNet struct{ names autoNames }

// convBN is Keras's conv2d_bn with a ReLU: a convolution without bias,
// a batch normalization without scale and the activation, named after
// name (name, name_bn, name_ac) or automatically when name is "".
func (b inceptionResNet) convBN(x *layers.KerasTensor, filters, rows, cols, stride int, padding, name string) *layers.KerasTensor {
	convName, bnName, acName := name, name+"_bn", name+"_ac"
	if name == "" {
		convName, bnName, acName = b.names.next("conv2d"), b.names.next("batch_normalization"), b.names.next("activation")
	}
	x = layers.Apply(layers.Named(convName, &layers.Conv2D{
		Filters: filters, KernelSize: [2]int{rows, cols}, Strides: [2]int{stride, stride}, Padding: padding, NoBias: true,
	}), x)
	x = layers.Apply(layers.Named(bnName, &layers.BatchNormalization{Axis: 3, NoScale: true}), x)
	return layers.Apply(layers.Named(acName, &layers.Activation{Fn: "relu"}), x)
}

// conv is convBN with stride 1, "same" padding and an automatic name.
func (b inceptionResNet) conv(x *layers.KerasTensor, filters, rows, cols int) *layers.KerasTensor {
	return b.convBN(x, filters, rows, cols, 1, "same", "")
}

func (b inceptionResNet) maxPool(x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(b.names.next("max_pooling2d"), &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}}), x)
}

// block is Keras's inception_resnet_block: inception branches, a 1x1
// convolution with bias back to x's channels, added to x scaled by scale
// (CustomScaleLayer), and a ReLU unless the block is the last one.
func (b inceptionResNet) block(x *layers.KerasTensor, scale float64, kind string, idx int, relu bool) *layers.KerasTensor {
	var branches []*layers.KerasTensor
	switch kind {
	case "block35":
		branches = []*layers.KerasTensor{
			b.conv(x, 32, 1, 1),
			b.conv(b.conv(x, 32, 1, 1), 32, 3, 3),
			b.conv(b.conv(b.conv(x, 32, 1, 1), 48, 3, 3), 64, 3, 3),
		}
	case "block17":
		branches = []*layers.KerasTensor{
			b.conv(x, 192, 1, 1),
			b.conv(b.conv(b.conv(x, 128, 1, 1), 160, 1, 7), 192, 7, 1),
		}
	case "block8":
		branches = []*layers.KerasTensor{
			b.conv(x, 192, 1, 1),
			b.conv(b.conv(b.conv(x, 192, 1, 1), 224, 1, 3), 256, 3, 1),
		}
	}
	name := fmt.Sprintf("%s_%d", kind, idx)
	mixed := concat(name+"_mixed", branches...)
	up := layers.Apply(layers.Named(name+"_conv", &layers.Conv2D{
		Filters: x.Shape()[3], KernelSize: [2]int{1, 1}, Padding: "same",
	}), mixed)
	x = layers.Apply(layers.Named(b.names.next("custom_scale_layer"), &CustomScaleLayer{Scale: scale}), x, up)
	if relu {
		x = layers.Apply(layers.Named(name+"_ac", &layers.Activation{Fn: "relu"}), x)
	}
	return x
}
