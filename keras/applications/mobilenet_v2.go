package applications

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// MobileNetV2Options are MobileNetV2's arguments: Options and the width
// multiplier.
type MobileNetV2Options struct {
	Options
	// Alpha scales the number of filters of every layer (Keras's alpha);
	// default 1.0. Keras's ImageNet weights exist for 0.35, 0.5, 0.75,
	// 1.0, 1.3 and 1.4.
	Alpha float64
}

// MobileNetV2 returns the inverted-residual network of Sandler et al.
// (2018), as keras.applications.MobileNetV2 builds it: 3,538,984
// parameters with the top at alpha 1.0. Its input is expected as Keras's
// mobilenet_v2.preprocess_input leaves it (scaled to [-1, 1]). The
// default name is Keras's, e.g. "mobilenetv2_1.00_224".
func MobileNetV2(o MobileNetV2Options) (*keras.Model, error) {
	shape, err := o.inputShape()
	if err != nil {
		return nil, fmt.Errorf("mobilenetv2: %w", err)
	}
	alpha := o.Alpha
	if alpha == 0 {
		alpha = 1
	}
	if alpha < 0 {
		return nil, fmt.Errorf("mobilenetv2: alpha must be positive, got %v", alpha)
	}
	if o.Weights == "imagenet" {
		if !slices.Contains(mobileNetV2Alphas, alpha) {
			return nil, fmt.Errorf(`mobilenetv2: weights "imagenet" exist for alpha %v, got %v`, mobileNetV2Alphas, alpha)
		}
		if err := o.checkImagenet(shape, mobileNetV2Sizes); err != nil {
			return nil, fmt.Errorf("mobilenetv2: %w", err)
		}
	}
	// Keras takes the weights for 224x224 images where it has none for
	// the input's size (without the top only: their shapes do not depend
	// on it), and warns.
	weightsRows := shape[0]
	if shape[0] != shape[1] || !slices.Contains(mobileNetV2Sizes, shape[0]) {
		weightsRows = 224
	}
	in := layers.Input(shape...)
	x := layers.Apply(layers.Named("Conv1", &layers.Conv2D{
		Filters: makeDivisible(32*alpha, 8), KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", NoBias: true,
	}), in)
	x = mobileBatchNorm("bn_Conv1", x)
	x = relu6("Conv1_relu", x)
	for id, b := range []struct{ filters, stride, expansion int }{
		{16, 1, 1},
		{24, 2, 6}, {24, 1, 6},
		{32, 2, 6}, {32, 1, 6}, {32, 1, 6},
		{64, 2, 6}, {64, 1, 6}, {64, 1, 6}, {64, 1, 6},
		{96, 1, 6}, {96, 1, 6}, {96, 1, 6},
		{160, 2, 6}, {160, 1, 6}, {160, 1, 6},
		{320, 1, 6},
	} {
		x = invertedResBlock(x, b.expansion, b.stride, alpha, b.filters, id)
	}
	last := 1280
	if alpha > 1 {
		last = makeDivisible(1280*alpha, 8)
	}
	x = layers.Apply(layers.Named("Conv_1", &layers.Conv2D{Filters: last, KernelSize: [2]int{1, 1}, NoBias: true}), x)
	x = mobileBatchNorm("Conv_1_bn", x)
	x = relu6("out_relu", x)
	if o.ExcludeTop {
		x = o.pool(x, "", "")
	} else {
		x = layers.Apply(&layers.GlobalAveragePooling2D{}, x)
		x = layers.Apply(layers.Named("predictions", &layers.Dense{Units: o.classes(), Activation: o.classifierActivation()}), x)
	}
	return o.model(in, x, fmt.Sprintf("mobilenetv2_%.2f_%d", alpha, shape[0]), mobileNetV2Files(alpha, weightsRows))
}

// invertedResBlock is Keras's _inverted_res_block: a 1x1 expansion
// (except in block 0), a 3x3 depthwise convolution, a 1x1 linear
// projection, and a residual connection where the shapes allow it.
func invertedResBlock(x *layers.KerasTensor, expansion, stride int, alpha float64, filters, id int) *layers.KerasTensor {
	inputs := x
	inChannels := x.Shape()[3]
	pointwise := makeDivisible(float64(int(float64(filters)*alpha)), 8)
	prefix := fmt.Sprintf("block_%d_", id)
	if id > 0 {
		x = layers.Apply(layers.Named(prefix+"expand", &layers.Conv2D{
			Filters: expansion * inChannels, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true,
		}), x)
		x = mobileBatchNorm(prefix+"expand_BN", x)
		x = relu6(prefix+"expand_relu", x)
	} else {
		prefix = "expanded_conv_"
	}
	x = depthwiseConv(x, prefix+"depthwise", prefix+"pad", 3, stride)
	x = mobileBatchNorm(prefix+"depthwise_BN", x)
	x = relu6(prefix+"depthwise_relu", x)
	x = layers.Apply(layers.Named(prefix+"project", &layers.Conv2D{
		Filters: pointwise, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true,
	}), x)
	x = mobileBatchNorm(prefix+"project_BN", x)
	if inChannels == pointwise && stride == 1 {
		return layers.Apply(layers.Named(prefix+"add", &layers.Add{}), inputs, x)
	}
	return x
}

// depthwiseConv is the depthwise convolution without bias of the
// inverted residual blocks (MobileNetV2, MobileNetV3, EfficientNet):
// "same" padded at stride 1; at stride 2 first zero padded by a layer
// named padName (correctPad), then "valid", as Keras pads them.
func depthwiseConv(x *layers.KerasTensor, name, padName string, kernel, stride int) *layers.KerasTensor {
	padding := "same"
	if stride == 2 {
		x = layers.Apply(layers.Named(padName, &layers.ZeroPadding2D{Padding: correctPad(x.Shape(), kernel)}), x)
		padding = "valid"
	}
	return layers.Apply(layers.Named(name, &layers.DepthwiseConv2D{
		KernelSize: [2]int{kernel, kernel}, Strides: [2]int{stride, stride}, Padding: padding, NoBias: true,
	}), x)
}

// makeDivisible is Keras's _make_divisible: v rounded to the nearest
// multiple of divisor, at least divisor, and not below 90% of v.
func makeDivisible(v float64, divisor int) int {
	d := float64(divisor)
	n := max(divisor, int(v+d/2)/divisor*divisor)
	if float64(n) < 0.9*v {
		n += divisor
	}
	return n
}

// correctPad is Keras's imagenet_utils.correct_pad for channels_last
// images of shape (batch, rows, cols, channels): the zero padding before
// a strided "valid" convolution of the given kernel size that keeps
// Keras's output size.
func correctPad(shape []int, kernel int) [2][2]int {
	correct := kernel / 2
	adjust := func(n int) int { return 1 - n%2 }
	return [2][2]int{
		{correct - adjust(shape[1]), correct},
		{correct - adjust(shape[2]), correct},
	}
}

// mobileBatchNorm is MobileNetV2's BatchNormalization (epsilon 1e-3,
// momentum 0.999).
func mobileBatchNorm(name string, x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.BatchNormalization{Axis: -1, Epsilon: 1e-3, Momentum: 0.999}), x)
}

// relu6 is a ReLU layer capped at 6.
func relu6(name string, x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.ReLU{MaxValue: 6}), x)
}
