package applications

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// efficientNetVariant is one of EfficientNetB0 to B7: Keras's width and
// depth coefficients, default image size, top dropout rate and weight
// file hashes (with and without the top).
type efficientNetVariant struct {
	name               string // "b0" ... "b7"
	width, depth       float64
	size               int
	dropout            float64
	topHash, notopHash string
}

// efficientNetVariants are efficientnet.py's EfficientNetB0 to B7.
var efficientNetVariants = map[string]efficientNetVariant{
	"b0": {"b0", 1.0, 1.0, 224, 0.2, "902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"},
	"b1": {"b1", 1.0, 1.1, 240, 0.2, "1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"},
	"b2": {"b2", 1.1, 1.2, 260, 0.3, "b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"},
	"b3": {"b3", 1.2, 1.4, 300, 0.3, "ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"},
	"b4": {"b4", 1.4, 1.8, 380, 0.4, "18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"},
	"b5": {"b5", 1.6, 2.2, 456, 0.4, "ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"},
	"b6": {"b6", 1.8, 2.6, 528, 0.5, "165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"},
	"b7": {"b7", 2.0, 3.1, 600, 0.5, "8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"},
}

// efficientNetBlock is one row of Keras's DEFAULT_BLOCKS_ARGS (every row
// has id_skip true and se_ratio 0.25).
type efficientNetBlock struct {
	kernel, repeats, filtersIn, filtersOut, expand, stride int
}

var efficientNetBlocks = []efficientNetBlock{
	{3, 1, 32, 16, 1, 1},
	{3, 2, 16, 24, 6, 2},
	{5, 2, 24, 40, 6, 2},
	{3, 3, 40, 80, 6, 2},
	{5, 3, 80, 112, 6, 1},
	{5, 4, 112, 192, 6, 2},
	{3, 1, 192, 320, 6, 1},
}

// Keras's initializers for EfficientNet's convolutions and classifier
// (CONV_KERNEL_INITIALIZER and DENSE_KERNEL_INITIALIZER).
const (
	efficientNetConvInit  = "variance_scaling(scale=2, mode=fan_out, distribution=truncated_normal)"
	efficientNetDenseInit = "variance_scaling(scale=0.3333333333333333, mode=fan_out, distribution=uniform)"
)

// imagenetStddevRGB is ImageNet's per-channel standard deviation, which
// EfficientNet's ImageNet weights divide by once more (Keras's
// IMAGENET_STDDEV_RGB).
var imagenetStddevRGB = []float64{0.229, 0.224, 0.225}

// EfficientNetB0 returns the network of Tan and Le (2019), as
// keras.applications.EfficientNetB0 builds it: 5,330,571 parameters with
// the top, for 224x224x3 images. EfficientNet's models take pixels in
// [0, 255]: their scaling and normalization are layers of the model, so
// EfficientNetPreprocessInput passes images through unchanged.
func EfficientNetB0(o Options) (*keras.Model, error) { return efficientNet(o, "b0") }

// EfficientNetB1 is EfficientNetB0 scaled to 240x240 images (7,856,239
// parameters).
func EfficientNetB1(o Options) (*keras.Model, error) { return efficientNet(o, "b1") }

// EfficientNetB2 is EfficientNetB0 scaled to 260x260 images (9,177,569
// parameters).
func EfficientNetB2(o Options) (*keras.Model, error) { return efficientNet(o, "b2") }

// EfficientNetB3 is EfficientNetB0 scaled to 300x300 images (12,320,535
// parameters).
func EfficientNetB3(o Options) (*keras.Model, error) { return efficientNet(o, "b3") }

// EfficientNetB4 is EfficientNetB0 scaled to 380x380 images (19,466,823
// parameters).
func EfficientNetB4(o Options) (*keras.Model, error) { return efficientNet(o, "b4") }

// EfficientNetB5 is EfficientNetB0 scaled to 456x456 images (30,562,527
// parameters).
func EfficientNetB5(o Options) (*keras.Model, error) { return efficientNet(o, "b5") }

// EfficientNetB6 is EfficientNetB0 scaled to 528x528 images (43,265,143
// parameters).
func EfficientNetB6(o Options) (*keras.Model, error) { return efficientNet(o, "b6") }

// EfficientNetB7 is EfficientNetB0 scaled to 600x600 images (66,658,687
// parameters).
func EfficientNetB7(o Options) (*keras.Model, error) { return efficientNet(o, "b7") }

// efficientNet is Keras's EfficientNet function for one variant.
func efficientNet(o Options, variant string) (*keras.Model, error) {
	v := efficientNetVariants[variant]
	name := "efficientnet" + v.name
	shape, err := o.imageShape(v.size, minSize, []int{v.size})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	roundFilters := func(filters int) int { return makeDivisible(float64(filters)*v.width, 8) }
	roundRepeats := func(repeats int) int { return int(math.Ceil(v.depth * float64(repeats))) }

	names := autoNames{}
	in := layers.Input(shape...)
	x := layers.Apply(layers.Named(names.next("rescaling"), &layers.Rescaling{Scale: 1.0 / 255}), in)
	x = layers.Apply(layers.Named(names.next("normalization"), &layers.Normalization{Axis: []int{3}}), x)
	if o.Weights == "imagenet" {
		// The ImageNet weights divide by the standard deviation twice
		// (Keras's note on tensorflow/tensorflow#49930).
		scale := make([]float64, 3)
		for i, s := range imagenetStddevRGB {
			scale[i] = 1 / math.Sqrt(s)
		}
		x = layers.Apply(layers.Named(names.next("rescaling"), &layers.Rescaling{ChannelScale: scale}), x)
	}
	x = layers.Apply(layers.Named("stem_conv_pad", &layers.ZeroPadding2D{Padding: correctPad(x.Shape(), 3)}), x)
	x = layers.Apply(layers.Named("stem_conv", &layers.Conv2D{
		Filters: roundFilters(32), KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, NoBias: true, KernelInitializer: efficientNetConvInit,
	}), x)
	x = layers.Apply(layers.Named("stem_bn", &layers.BatchNormalization{Axis: 3}), x)
	x = layers.Apply(layers.Named("stem_activation", &layers.Activation{Fn: "swish"}), x)

	total := 0
	for _, b := range efficientNetBlocks {
		total += roundRepeats(b.repeats)
	}
	done := 0
	for i, b := range efficientNetBlocks {
		filtersIn, filtersOut, stride := roundFilters(b.filtersIn), roundFilters(b.filtersOut), b.stride
		for j := range roundRepeats(b.repeats) {
			if j > 0 {
				stride, filtersIn = 1, filtersOut
			}
			drop := 0.2 * float64(done) / float64(total)
			x = efficientNetMBConv(x, fmt.Sprintf("block%d%c_", i+1, 'a'+j), filtersIn, filtersOut, b.kernel, stride, b.expand, drop)
			done++
		}
	}

	x = layers.Apply(layers.Named("top_conv", &layers.Conv2D{
		Filters: roundFilters(1280), KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true, KernelInitializer: efficientNetConvInit,
	}), x)
	x = layers.Apply(layers.Named("top_bn", &layers.BatchNormalization{Axis: 3}), x)
	x = layers.Apply(layers.Named("top_activation", &layers.Activation{Fn: "swish"}), x)
	if o.ExcludeTop {
		x = o.pool(x, "avg_pool", "max_pool")
	} else {
		x = layers.Apply(layers.Named("avg_pool", &layers.GlobalAveragePooling2D{}), x)
		x = layers.Apply(layers.Named("top_dropout", &layers.Dropout{Rate: v.dropout}), x)
		x = layers.Apply(layers.Named("predictions", &layers.Dense{
			Units: o.classes(), Activation: o.classifierActivation(), KernelInitializer: efficientNetDenseInit,
		}), x)
	}
	files := imagenetWeights{network: "EfficientNet" + string(v.name[0]-'a'+'A') + v.name[1:],
		top: kerasApplications + name + ".h5", topHash: v.topHash,
		notop: kerasApplications + name + "_notop.h5", notopHash: v.notopHash}
	return o.model(in, x, name, files)
}

// efficientNetMBConv is Keras's EfficientNet block: an inverted residual
// with squeeze and excitation, and stochastic depth (a dropout of whole
// samples at rate drop) on the residual.
func efficientNetMBConv(inputs *layers.KerasTensor, prefix string, filtersIn, filtersOut, kernel, stride, expand int, drop float64) *layers.KerasTensor {
	x := inputs
	filters := filtersIn * expand
	if expand != 1 {
		x = layers.Apply(layers.Named(prefix+"expand_conv", &layers.Conv2D{
			Filters: filters, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true, KernelInitializer: efficientNetConvInit,
		}), x)
		x = layers.Apply(layers.Named(prefix+"expand_bn", &layers.BatchNormalization{Axis: 3}), x)
		x = layers.Apply(layers.Named(prefix+"expand_activation", &layers.Activation{Fn: "swish"}), x)
	}
	x = depthwiseConv(x, prefix+"dwconv", prefix+"dwconv_pad", kernel, stride)
	x = layers.Apply(layers.Named(prefix+"bn", &layers.BatchNormalization{Axis: 3}), x)
	x = layers.Apply(layers.Named(prefix+"activation", &layers.Activation{Fn: "swish"}), x)

	x = efficientNetSqueezeExcite(x, prefix, filtersIn, filters)

	x = layers.Apply(layers.Named(prefix+"project_conv", &layers.Conv2D{
		Filters: filtersOut, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true, KernelInitializer: efficientNetConvInit,
	}), x)
	x = layers.Apply(layers.Named(prefix+"project_bn", &layers.BatchNormalization{Axis: 3}), x)
	if stride == 1 && filtersIn == filtersOut {
		x = efficientNetResidual(x, inputs, prefix, drop)
	}
	return x
}

// efficientNetResidual adds a block's input to its output x, after the
// stochastic depth (a dropout of whole samples at rate drop) of
// EfficientNet's and EfficientNetV2's blocks.
func efficientNetResidual(x, inputs *layers.KerasTensor, prefix string, drop float64) *layers.KerasTensor {
	if drop > 0 {
		x = layers.Apply(layers.Named(prefix+"drop", &layers.Dropout{Rate: drop, NoiseShape: []int{-1, 1, 1, 1}}), x)
	}
	return layers.Apply(layers.Named(prefix+"add", &layers.Add{}), x, inputs)
}

// efficientNetSqueezeExcite is the squeeze and excitation of
// EfficientNet's and EfficientNetV2's blocks (se_ratio 0.25): x's
// channels scaled by weights computed from their means.
func efficientNetSqueezeExcite(x *layers.KerasTensor, prefix string, filtersIn, filters int) *layers.KerasTensor {
	se := layers.Apply(layers.Named(prefix+"se_squeeze", &layers.GlobalAveragePooling2D{}), x)
	se = layers.Apply(layers.Named(prefix+"se_reshape", &layers.Reshape{TargetShape: []int{1, 1, filters}}), se)
	se = layers.Apply(layers.Named(prefix+"se_reduce", &layers.Conv2D{
		Filters: max(1, filtersIn/4), KernelSize: [2]int{1, 1}, Padding: "same", Activation: "swish", KernelInitializer: efficientNetConvInit,
	}), se)
	se = layers.Apply(layers.Named(prefix+"se_expand", &layers.Conv2D{
		Filters: filters, KernelSize: [2]int{1, 1}, Padding: "same", Activation: "sigmoid", KernelInitializer: efficientNetConvInit,
	}), se)
	return layers.Apply(layers.Named(prefix+"se_excite", &layers.Multiply{}), x, se)
}
