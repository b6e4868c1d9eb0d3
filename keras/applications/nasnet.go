package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The NASNet files of nasnet.py, which Keras keeps in its cache under
// other names than their origin's.
var (
	nasNetMobileWeights = imagenetWeights{network: "NASNetMobile",
		top: tfApplications + "nasnet/NASNet-mobile.h5", topHash: "020fb642bf7360b370c678b08e0adf61",
		notop: tfApplications + "nasnet/NASNet-mobile-no-top.h5", notopHash: "1ed92395b5b598bdda52abe5c0dbfd63",
		topName: "nasnet_mobile.h5", notopName: "nasnet_mobile_no_top.h5"}
	nasNetLargeWeights = imagenetWeights{network: "NASNetLarge",
		top: tfApplications + "nasnet/NASNet-large.h5", topHash: "11577c9a518f0070763c2b964a382f17",
		notop: tfApplications + "nasnet/NASNet-large-no-top.h5", notopHash: "d81d89dc07e6e56530c4e77faddd61b5",
		topName: "nasnet_large.h5", notopName: "nasnet_large_no_top.h5"}
)

// NASNetMobile returns the network of Zoph et al. (2018) found by
// architecture search, as keras.applications.NASNetMobile builds it:
// 5,326,716 parameters with the top, for 224x224x3 images. Its input is
// expected as NASNetPreprocessInput leaves it (scaled to [-1, 1]).
func NASNetMobile(o Options) (*keras.Model, error) {
	return nasNet(o, "nasnet_mobile", 224, 1056, 4, 32, false, nasNetMobileWeights)
}

// NASNetLarge is the large NASNet, for 331x331x3 images (88,949,818
// parameters).
func NASNetLarge(o Options) (*keras.Model, error) {
	return nasNet(o, "nasnet_large", 331, 4032, 6, 96, true, nasNetLargeWeights)
}

// nasNetBuilder builds a NASNet with Keras's layer names: the automatic
// ones are given in the order Keras's nasnet.py creates the layers.
type nasNetBuilder struct{ names autoNames }

func (b nasNetBuilder) relu(x *layers.KerasTensor, name string) *layers.KerasTensor {
	if name == "" {
		name = b.names.next("activation")
	}
	return layers.Apply(layers.Named(name, &layers.Activation{Fn: "relu"}), x)
}

func nasNetBatchNorm(x *layers.KerasTensor, name string) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.BatchNormalization{Axis: -1, Momentum: 0.9997, Epsilon: 1e-3}), x)
}

func nasNetConv(x *layers.KerasTensor, filters int, name string) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.Conv2D{
		Filters: filters, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true, KernelInitializer: "he_normal",
	}), x)
}

func nasNetAdd(name string, a, c *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.Add{}), a, c)
}

func nasNetPool(x *layers.KerasTensor, maxPool bool, stride int, padding, name string) *layers.KerasTensor {
	if maxPool {
		return layers.Apply(layers.Named(name, &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{stride, stride}, Padding: padding}), x)
	}
	return layers.Apply(layers.Named(name, &layers.AveragePooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{stride, stride}, Padding: padding}), x)
}

// nasNet is Keras's NASNet function.
func nasNet(o Options, name string, size, penultimate, blocks, stemFilters int, skipReduction bool, w imagenetWeights) (*keras.Model, error) {
	shape, err := o.imageShape(size, minSize, []int{size})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	const multiplier = 2
	filters := penultimate / 24
	b := nasNetBuilder{names: autoNames{}}
	in := layers.Input(shape...)
	x := layers.Apply(layers.Named("stem_conv1", &layers.Conv2D{
		Filters: stemFilters, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, NoBias: true, KernelInitializer: "he_normal",
	}), in)
	x = nasNetBatchNorm(x, "stem_bn1")
	var p *layers.KerasTensor
	x, p = b.reductionCell(x, p, filters/(multiplier*multiplier), "stem_1")
	x, p = b.reductionCell(x, p, filters/multiplier, "stem_2")
	for i := range blocks {
		x, p = b.normalCell(x, p, filters, fmt.Sprint(i))
	}
	var p0 *layers.KerasTensor
	x, p0 = b.reductionCell(x, p, filters*multiplier, fmt.Sprintf("reduce_%d", blocks))
	if !skipReduction {
		p = p0
	}
	for i := range blocks {
		x, p = b.normalCell(x, p, filters*multiplier, fmt.Sprint(blocks+i+1))
	}
	x, p0 = b.reductionCell(x, p, filters*multiplier*multiplier, fmt.Sprintf("reduce_%d", 2*blocks))
	if !skipReduction {
		p = p0
	}
	for i := range blocks {
		x, p = b.normalCell(x, p, filters*multiplier*multiplier, fmt.Sprint(2*blocks+i+1))
	}
	x = b.relu(x, "")
	if o.ExcludeTop {
		x = o.pool(x, "", "")
	} else {
		x = layers.Apply(layers.Named(b.names.next("global_average_pooling2d"), &layers.GlobalAveragePooling2D{}), x)
		x = layers.Apply(layers.Named("predictions", &layers.Dense{Units: o.classes(), Activation: o.classifierActivation()}), x)
	}
	return o.model(in, x, name, w)
}

// separableBlock is Keras's _separable_conv_block: twice a ReLU, a
// separable convolution and a batch normalization, the first strided
// where asked (after Keras's padding).
func (b nasNetBuilder) separableBlock(x *layers.KerasTensor, filters, kernel, stride int, id string) *layers.KerasTensor {
	x = b.relu(x, "")
	padding := "same"
	if stride == 2 {
		x = layers.Apply(layers.Named("separable_conv_1_pad_"+id, &layers.ZeroPadding2D{Padding: correctPad(x.Shape(), kernel)}), x)
		padding = "valid"
	}
	x = layers.Apply(layers.Named("separable_conv_1_"+id, &layers.SeparableConv2D{
		Filters: filters, KernelSize: [2]int{kernel, kernel}, Strides: [2]int{stride, stride}, Padding: padding, NoBias: true,
	}), x)
	x = nasNetBatchNorm(x, "separable_conv_1_bn_"+id)
	x = b.relu(x, "")
	x = layers.Apply(layers.Named("separable_conv_2_"+id, &layers.SeparableConv2D{
		Filters: filters, KernelSize: [2]int{kernel, kernel}, Padding: "same", NoBias: true,
	}), x)
	return nasNetBatchNorm(x, "separable_conv_2_bn_"+id)
}

// adjust is Keras's _adjust_block: p brought to ip's size and filters.
func (b nasNetBuilder) adjust(p, ip *layers.KerasTensor, filters int, id string) *layers.KerasTensor {
	switch {
	case p == nil:
		return ip
	case p.Shape()[2] != ip.Shape()[2]:
		p = b.relu(p, "adjust_relu_1_"+id)
		p1 := layers.Apply(layers.Named("adjust_avg_pool_1_"+id, &layers.AveragePooling2D{PoolSize: [2]int{1, 1}, Strides: [2]int{2, 2}}), p)
		p1 = nasNetConv(p1, filters/2, "adjust_conv_1_"+id)
		p2 := layers.Apply(layers.Named(b.names.next("zero_padding2d"), &layers.ZeroPadding2D{Padding: [2][2]int{{0, 1}, {0, 1}}}), p)
		p2 = layers.Apply(layers.Named(b.names.next("cropping2d"), &layers.Cropping2D{Cropping: [2][2]int{{1, 0}, {1, 0}}}), p2)
		p2 = layers.Apply(layers.Named("adjust_avg_pool_2_"+id, &layers.AveragePooling2D{PoolSize: [2]int{1, 1}, Strides: [2]int{2, 2}}), p2)
		p2 = nasNetConv(p2, filters/2, "adjust_conv_2_"+id)
		p = layers.Apply(layers.Named(b.names.next("concatenate"), &layers.Concatenate{Axis: -1}), p1, p2)
		return nasNetBatchNorm(p, "adjust_bn_"+id)
	case p.Shape()[3] != filters:
		p = b.relu(p, "")
		p = nasNetConv(p, filters, "adjust_conv_projection_"+id)
		return nasNetBatchNorm(p, "adjust_bn_"+id)
	}
	return p
}

// normalCell is Keras's _normal_a_cell; it returns the cell's output and
// its input ip (the next cell's p).
func (b nasNetBuilder) normalCell(ip, p *layers.KerasTensor, filters int, id string) (*layers.KerasTensor, *layers.KerasTensor) {
	p = b.adjust(p, ip, filters, id)
	h := b.relu(ip, "")
	h = nasNetConv(h, filters, "normal_conv_1_"+id)
	h = nasNetBatchNorm(h, "normal_bn_1_"+id)
	x11 := b.separableBlock(h, filters, 5, 1, "normal_left1_"+id)
	x12 := b.separableBlock(p, filters, 3, 1, "normal_right1_"+id)
	x1 := nasNetAdd("normal_add_1_"+id, x11, x12)
	x21 := b.separableBlock(p, filters, 5, 1, "normal_left2_"+id)
	x22 := b.separableBlock(p, filters, 3, 1, "normal_right2_"+id)
	x2 := nasNetAdd("normal_add_2_"+id, x21, x22)
	x3 := nasNetAdd("normal_add_3_"+id, nasNetPool(h, false, 1, "same", "normal_left3_"+id), p)
	x41 := nasNetPool(p, false, 1, "same", "normal_left4_"+id)
	x42 := nasNetPool(p, false, 1, "same", "normal_right4_"+id)
	x4 := nasNetAdd("normal_add_4_"+id, x41, x42)
	x5 := nasNetAdd("normal_add_5_"+id, b.separableBlock(h, filters, 3, 1, "normal_left5_"+id), h)
	x := layers.Apply(layers.Named("normal_concat_"+id, &layers.Concatenate{Axis: -1}), p, x1, x2, x3, x4, x5)
	return x, ip
}

// reductionCell is Keras's _reduction_a_cell, which halves the image.
func (b nasNetBuilder) reductionCell(ip, p *layers.KerasTensor, filters int, id string) (*layers.KerasTensor, *layers.KerasTensor) {
	p = b.adjust(p, ip, filters, id)
	h := b.relu(ip, "")
	h = nasNetConv(h, filters, "reduction_conv_1_"+id)
	h = nasNetBatchNorm(h, "reduction_bn_1_"+id)
	h3 := layers.Apply(layers.Named("reduction_pad_1_"+id, &layers.ZeroPadding2D{Padding: correctPad(h.Shape(), 3)}), h)
	x11 := b.separableBlock(h, filters, 5, 2, "reduction_left1_"+id)
	x12 := b.separableBlock(p, filters, 7, 2, "reduction_right1_"+id)
	x1 := nasNetAdd("reduction_add_1_"+id, x11, x12)
	x21 := nasNetPool(h3, true, 2, "valid", "reduction_left2_"+id)
	x22 := b.separableBlock(p, filters, 7, 2, "reduction_right2_"+id)
	x2 := nasNetAdd("reduction_add_2_"+id, x21, x22)
	x31 := nasNetPool(h3, false, 2, "valid", "reduction_left3_"+id)
	x32 := b.separableBlock(p, filters, 5, 2, "reduction_right3_"+id)
	x3 := nasNetAdd("reduction_add3_"+id, x31, x32)
	x4 := nasNetPool(x1, false, 1, "same", "reduction_left4_"+id)
	x4 = nasNetAdd(b.names.next("add"), x2, x4)
	x51 := b.separableBlock(x1, filters, 3, 1, "reduction_left4_"+id)
	x52 := nasNetPool(h3, true, 2, "valid", "reduction_right5_"+id)
	x5 := nasNetAdd("reduction_add4_"+id, x51, x52)
	x := layers.Apply(layers.Named("reduction_concat_"+id, &layers.Concatenate{Axis: -1}), x2, x3, x4, x5)
	return x, ip
}
