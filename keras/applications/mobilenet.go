package applications

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// MobileNetOptions are MobileNet's arguments: Options, the width
// multiplier, the depth multiplier and the top's dropout rate.
type MobileNetOptions struct {
	Options
	// Alpha scales the number of filters of every layer (Keras's alpha);
	// default 1.0. Keras's ImageNet weights exist for 0.25, 0.5, 0.75 and
	// 1.0.
	Alpha float64
	// DepthMultiplier is the depthwise convolutions' (Keras's
	// depth_multiplier); default 1, the only one with ImageNet weights.
	DepthMultiplier int
	// Dropout is the rate of the top's dropout; default Keras's 1e-3.
	Dropout float64
}

// mobileNetAlphas and mobileNetSizes are the widths and image sizes Keras
// has MobileNet's ImageNet weights for.
var (
	mobileNetAlphas = map[float64]string{0.25: "2_5", 0.5: "5_0", 0.75: "7_5", 1.0: "1_0"}
	mobileNetSizes  = []int{128, 160, 192, 224}
)

// MobileNet returns the depthwise-separable network of Howard et al.
// (2017), as keras.applications.MobileNet builds it: 4,253,864 parameters
// with the top at alpha 1.0. Its input is expected as
// MobileNetPreprocessInput leaves it (scaled to [-1, 1]). The default name
// is Keras's, e.g. "mobilenet_1.00_224".
func MobileNet(o MobileNetOptions) (*keras.Model, error) {
	shape, err := o.inputShape()
	if err != nil {
		return nil, fmt.Errorf("mobilenet: %w", err)
	}
	alpha := o.Alpha
	if alpha == 0 {
		alpha = 1
	}
	depth := o.DepthMultiplier
	if depth == 0 {
		depth = 1
	}
	dropout := o.Dropout
	if dropout == 0 {
		dropout = 1e-3
	}
	switch {
	case alpha < 0:
		return nil, fmt.Errorf("mobilenet: alpha must be positive, got %v", alpha)
	case depth < 0:
		return nil, fmt.Errorf("mobilenet: the depth multiplier must be positive, got %d", depth)
	}
	weightsRows := shape[0]
	if shape[0] != shape[1] || !slices.Contains(mobileNetSizes, shape[0]) {
		weightsRows = 224 // as Keras, where it has no weights for the size
	}
	if o.Weights == "imagenet" {
		if _, ok := mobileNetAlphas[alpha]; !ok || depth != 1 {
			return nil, fmt.Errorf(`mobilenet: weights "imagenet" exist for alpha 0.25, 0.5, 0.75 and 1.0 and a depth multiplier of 1, got %v and %d`, alpha, depth)
		}
		if err := o.checkImagenet(shape, mobileNetSizes); err != nil {
			return nil, fmt.Errorf("mobilenet: %w", err)
		}
	}
	in := layers.Input(shape...)
	x := layers.Apply(layers.Named("conv1", &layers.Conv2D{
		Filters: int(32 * alpha), KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", NoBias: true,
	}), in)
	x = layers.Apply(layers.Named("conv1_bn", &layers.BatchNormalization{}), x)
	x = relu6("conv1_relu", x)
	for i, b := range []struct{ filters, stride int }{
		{64, 1}, {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},
		{512, 1}, {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1},
	} {
		x = depthwiseConvBlock(x, int(float64(b.filters)*alpha), depth, b.stride, i+1)
	}
	if o.ExcludeTop {
		x = o.pool(x, "", "")
	} else {
		classes := o.classes()
		x = layers.Apply(&layers.GlobalAveragePooling2D{KeepDims: true}, x)
		x = layers.Apply(layers.Named("dropout", &layers.Dropout{Rate: dropout}), x)
		x = layers.Apply(layers.Named("conv_preds", &layers.Conv2D{Filters: classes, KernelSize: [2]int{1, 1}, Padding: "same"}), x)
		x = layers.Apply(layers.Named("reshape_2", &layers.Reshape{TargetShape: []int{classes}}), x)
		x = layers.Apply(layers.Named("predictions", &layers.Activation{Fn: o.classifierActivation()}), x)
	}
	return o.model(in, x, fmt.Sprintf("mobilenet_%.2f_%d", alpha, shape[0]), mobileNetFiles(alpha, weightsRows))
}

// depthwiseConvBlock is Keras's _depthwise_conv_block: a depthwise
// convolution (padded on the bottom and right when strided), then a
// pointwise one, each with batch normalization and ReLU6.
func depthwiseConvBlock(x *layers.KerasTensor, pointwise, depth, stride, id int) *layers.KerasTensor {
	padding := "same"
	if stride != 1 {
		x = layers.Apply(layers.Named(fmt.Sprintf("conv_pad_%d", id), &layers.ZeroPadding2D{Padding: [2][2]int{{0, 1}, {0, 1}}}), x)
		padding = "valid"
	}
	x = layers.Apply(layers.Named(fmt.Sprintf("conv_dw_%d", id), &layers.DepthwiseConv2D{
		KernelSize: [2]int{3, 3}, Strides: [2]int{stride, stride}, Padding: padding, DepthMultiplier: depth, NoBias: true,
	}), x)
	x = layers.Apply(layers.Named(fmt.Sprintf("conv_dw_%d_bn", id), &layers.BatchNormalization{}), x)
	x = relu6(fmt.Sprintf("conv_dw_%d_relu", id), x)
	x = layers.Apply(layers.Named(fmt.Sprintf("conv_pw_%d", id), &layers.Conv2D{
		Filters: pointwise, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true,
	}), x)
	x = layers.Apply(layers.Named(fmt.Sprintf("conv_pw_%d_bn", id), &layers.BatchNormalization{}), x)
	return relu6(fmt.Sprintf("conv_pw_%d_relu", id), x)
}
