package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// xceptionWeights are xception.py's files.
var xceptionWeights = imagenetWeights{network: "Xception",
	top: tfApplications + "xception/xception_weights_tf_dim_ordering_tf_kernels.h5", topHash: "0a58e3b7378bc2990ea3b43d5981f1f6",
	notop: tfApplications + "xception/xception_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: "b0042744bf5b25fce3cb969f33bebb97"}

// Xception returns the depthwise-separable network of Chollet (2017), as
// keras.applications.Xception builds it: 22,910,480 parameters with the
// top, for 299x299x3 images (the default input; at least 71x71). Its
// input is expected as XceptionPreprocessInput leaves it (scaled to
// [-1, 1]).
func Xception(o Options) (*keras.Model, error) {
	shape, err := o.imageShape(299, 71, []int{299})
	if err != nil {
		return nil, fmt.Errorf("xception: %w", err)
	}
	// Keras names the residual branches' convolutions and batch
	// normalizations and the additions automatically, in this order.
	var convs, norms, adds int
	auto := func(base string, n *int) string {
		name := base
		if *n > 0 {
			name = fmt.Sprintf("%s_%d", base, *n)
		}
		*n++
		return name
	}
	bn := func(name string, x *layers.KerasTensor) *layers.KerasTensor {
		return layers.Apply(layers.Named(name, &layers.BatchNormalization{}), x)
	}
	sep := func(name string, filters int, x *layers.KerasTensor) *layers.KerasTensor {
		x = layers.Apply(layers.Named(name, &layers.SeparableConv2D{Filters: filters, KernelSize: [2]int{3, 3}, Padding: "same", NoBias: true}), x)
		return bn(name+"_bn", x)
	}
	residual := func(filters int, x *layers.KerasTensor) *layers.KerasTensor {
		r := layers.Apply(layers.Named(auto("conv2d", &convs), &layers.Conv2D{
			Filters: filters, KernelSize: [2]int{1, 1}, Strides: [2]int{2, 2}, Padding: "same", NoBias: true,
		}), x)
		return bn(auto("batch_normalization", &norms), r)
	}
	pool := func(name string, x *layers.KerasTensor) *layers.KerasTensor {
		return layers.Apply(layers.Named(name, &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}), x)
	}
	add := func(a, b *layers.KerasTensor) *layers.KerasTensor {
		return layers.Apply(layers.Named(auto("add", &adds), &layers.Add{}), a, b)
	}

	in := layers.Input(shape...)
	x := layers.Apply(layers.Named("block1_conv1", &layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, NoBias: true}), in)
	x = relu("block1_conv1_act", bn("block1_conv1_bn", x))
	x = layers.Apply(layers.Named("block1_conv2", &layers.Conv2D{Filters: 64, KernelSize: [2]int{3, 3}, NoBias: true}), x)
	x = relu("block1_conv2_act", bn("block1_conv2_bn", x))

	// Entry flow: blocks 2 to 4 halve the image and add a strided 1x1
	// convolution of their input.
	for block, filters := range []int{128, 256, 728} {
		name := fmt.Sprintf("block%d", block+2)
		r := residual(filters, x)
		if block > 0 {
			x = relu(name+"_sepconv1_act", x)
		}
		x = sep(name+"_sepconv1", filters, x)
		x = relu(name+"_sepconv2_act", x)
		x = sep(name+"_sepconv2", filters, x)
		x = add(pool(name+"_pool", x), r)
	}
	// Middle flow: eight blocks of three separable convolutions.
	for i := range 8 {
		name := fmt.Sprintf("block%d", i+5)
		r := x
		for c := 1; c <= 3; c++ {
			x = relu(fmt.Sprintf("%s_sepconv%d_act", name, c), x)
			x = sep(fmt.Sprintf("%s_sepconv%d", name, c), 728, x)
		}
		x = add(x, r)
	}
	// Exit flow.
	r := residual(1024, x)
	x = relu("block13_sepconv1_act", x)
	x = sep("block13_sepconv1", 728, x)
	x = relu("block13_sepconv2_act", x)
	x = sep("block13_sepconv2", 1024, x)
	x = add(pool("block13_pool", x), r)
	x = relu("block14_sepconv1_act", sep("block14_sepconv1", 1536, x))
	x = relu("block14_sepconv2_act", sep("block14_sepconv2", 2048, x))
	x = o.classifier(x, "", "")
	return o.model(in, x, "xception", xceptionWeights)
}
