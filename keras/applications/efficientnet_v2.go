package applications

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// EfficientNetV2Options are EfficientNetV2's arguments: Options and
// whether the model scales its input itself.
type EfficientNetV2Options struct {
	Options
	// ExcludePreprocessing leaves out the layers that scale pixels in
	// [0, 255] (Keras's include_preprocessing=False): the model then
	// takes images as the ImageNet weights' layers expect them.
	ExcludePreprocessing bool
}

// efficientNetV2Block is one row of Keras's DEFAULT_BLOCKS_ARGS.
type efficientNetV2Block struct {
	kernel, repeats, filtersIn, filtersOut, expand, stride int
	squeeze                                                bool // se_ratio 0.25, else 0
	fused                                                  bool // conv_type 1: FusedMBConvBlock
}

// efficientNetV2Variant is one of EfficientNetV2B0 to B3, S, M and L.
type efficientNetV2Variant struct {
	name, weightsName  string // Keras's model name and weights_name
	network            string // Keras's constructor, for messages
	width, depth       float64
	size               int
	blocks             []efficientNetV2Block
	topHash, notopHash string
}

// The blocks of B0 (and B1 to B3, which scale them) and of S, M and L.
var (
	efficientNetV2BBlocks = []efficientNetV2Block{
		{3, 1, 32, 16, 1, 1, false, true},
		{3, 2, 16, 32, 4, 2, false, true},
		{3, 2, 32, 48, 4, 2, false, true},
		{3, 3, 48, 96, 4, 2, true, false},
		{3, 5, 96, 112, 6, 1, true, false},
		{3, 8, 112, 192, 6, 2, true, false},
	}
	efficientNetV2SBlocks = []efficientNetV2Block{
		{3, 2, 24, 24, 1, 1, false, true},
		{3, 4, 24, 48, 4, 2, false, true},
		{3, 4, 48, 64, 4, 2, false, true},
		{3, 6, 64, 128, 4, 2, true, false},
		{3, 9, 128, 160, 6, 1, true, false},
		{3, 15, 160, 256, 6, 2, true, false},
	}
	efficientNetV2MBlocks = []efficientNetV2Block{
		{3, 3, 24, 24, 1, 1, false, true},
		{3, 5, 24, 48, 4, 2, false, true},
		{3, 5, 48, 80, 4, 2, false, true},
		{3, 7, 80, 160, 4, 2, true, false},
		{3, 14, 160, 176, 6, 1, true, false},
		{3, 18, 176, 304, 6, 2, true, false},
		{3, 5, 304, 512, 6, 1, true, false},
	}
	efficientNetV2LBlocks = []efficientNetV2Block{
		{3, 4, 32, 32, 1, 1, false, true},
		{3, 7, 32, 64, 4, 2, false, true},
		{3, 7, 64, 96, 4, 2, false, true},
		{3, 10, 96, 192, 4, 2, true, false},
		{3, 19, 192, 224, 6, 1, true, false},
		{3, 25, 224, 384, 6, 2, true, false},
		{3, 7, 384, 640, 6, 1, true, false},
	}
)

// efficientNetV2Variants are efficientnet_v2.py's seven networks.
var efficientNetV2Variants = map[string]efficientNetV2Variant{
	"b0": {"efficientnetv2-b0", "b0", "EfficientNetV2B0", 1.0, 1.0, 224, efficientNetV2BBlocks, "21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"},
	"b1": {"efficientnetv2-b1", "b1", "EfficientNetV2B1", 1.0, 1.1, 240, efficientNetV2BBlocks, "069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"},
	"b2": {"efficientnetv2-b2", "b2", "EfficientNetV2B2", 1.1, 1.2, 260, efficientNetV2BBlocks, "424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"},
	"b3": {"efficientnetv2-b3", "b3", "EfficientNetV2B3", 1.2, 1.4, 300, efficientNetV2BBlocks, "1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"},
	"s":  {"efficientnetv2-s", "-s", "EfficientNetV2S", 1.0, 1.0, 384, efficientNetV2SBlocks, "e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"},
	"m":  {"efficientnetv2-m", "-m", "EfficientNetV2M", 1.0, 1.0, 480, efficientNetV2MBlocks, "a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"},
	"l":  {"efficientnetv2-l", "-l", "EfficientNetV2L", 1.0, 1.0, 480, efficientNetV2LBlocks, "27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"},
}

// efficientNetV2Momentum is the momentum of EfficientNetV2's batch
// normalizations (Keras's bn_momentum).
const efficientNetV2Momentum = 0.9

// EfficientNetV2B0 returns the network of Tan and Le (2021), as
// keras.applications.EfficientNetV2B0 builds it: 7,200,312 parameters
// with the top, for 224x224x3 images. Like EfficientNet, it takes pixels
// in [0, 255] and scales them itself (unless ExcludePreprocessing), so
// EfficientNetV2PreprocessInput passes images through unchanged. The
// default name is Keras's, "efficientnetv2-b0".
func EfficientNetV2B0(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "b0")
}

// EfficientNetV2B1 is EfficientNetV2B0 scaled to 240x240 images
// (8,212,124 parameters).
func EfficientNetV2B1(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "b1")
}

// EfficientNetV2B2 is EfficientNetV2B0 scaled to 260x260 images
// (10,178,374 parameters).
func EfficientNetV2B2(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "b2")
}

// EfficientNetV2B3 is EfficientNetV2B0 scaled to 300x300 images
// (14,467,622 parameters).
func EfficientNetV2B3(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "b3")
}

// EfficientNetV2S is the small EfficientNetV2, for 384x384 images
// (21,612,360 parameters).
func EfficientNetV2S(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "s")
}

// EfficientNetV2M is the medium EfficientNetV2, for 480x480 images
// (54,431,388 parameters).
func EfficientNetV2M(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "m")
}

// EfficientNetV2L is the large EfficientNetV2, for 480x480 images
// (119,027,848 parameters).
func EfficientNetV2L(o EfficientNetV2Options) (*keras.Model, error) {
	return efficientNetV2(o, "l")
}

// efficientNetV2 is Keras's EfficientNetV2 function for one variant.
func efficientNetV2(o EfficientNetV2Options, variant string) (*keras.Model, error) {
	v := efficientNetV2Variants[variant]
	shape, err := o.imageShape(v.size, minSize, []int{v.size})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.name, err)
	}
	// Keras's round_filters here has no 10% rule, unlike
	// EfficientNet's.
	roundFilters := func(filters int) int {
		f := float64(filters) * v.width
		return max(8, int(f+4)/8*8)
	}

	names := autoNames{}
	in := layers.Input(shape...)
	x := in
	if !o.ExcludePreprocessing {
		if variant[0] == 'b' && shape[2] == 3 {
			x = layers.Apply(layers.Named(names.next("rescaling"), &layers.Rescaling{Scale: 1.0 / 255}), x)
			x = layers.Apply(layers.Named(names.next("normalization"), &layers.Normalization{
				Axis: []int{3}, Mean: []float64{0.485, 0.456, 0.406}, Variance: []float64{0.229 * 0.229, 0.224 * 0.224, 0.225 * 0.225},
			}), x)
		} else {
			x = layers.Apply(layers.Named(names.next("rescaling"), &layers.Rescaling{Scale: 1.0 / 128, Offset: -1}), x)
		}
	}
	x = layers.Apply(layers.Named("stem_conv", &layers.Conv2D{
		Filters: roundFilters(v.blocks[0].filtersIn), KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", NoBias: true,
		KernelInitializer: efficientNetConvInit,
	}), x)
	x = layers.Apply(layers.Named("stem_bn", &layers.BatchNormalization{Axis: 3, Momentum: efficientNetV2Momentum}), x)
	x = layers.Apply(layers.Named("stem_activation", &layers.Activation{Fn: "swish"}), x)

	// The drop rate grows with the block's index over the unscaled
	// number of blocks, as in Keras.
	total := 0
	for _, b := range v.blocks {
		total += b.repeats
	}
	done := 0
	for i, b := range v.blocks {
		filtersIn, filtersOut, stride := roundFilters(b.filtersIn), roundFilters(b.filtersOut), b.stride
		for j := range int(math.Ceil(v.depth * float64(b.repeats))) {
			if j > 0 {
				stride, filtersIn = 1, filtersOut
			}
			blk := efficientNetV2Conv{prefix: fmt.Sprintf("block%d%c_", i+1, 'a'+j), filtersIn: filtersIn, filtersOut: filtersOut,
				kernel: b.kernel, stride: stride, expand: b.expand, squeeze: b.squeeze, drop: 0.2 * float64(done) / float64(total)}
			if b.fused {
				x = blk.fused(x)
			} else {
				x = blk.mbConv(x)
			}
			done++
		}
	}

	x = layers.Apply(layers.Named("top_conv", &layers.Conv2D{
		Filters: roundFilters(1280), KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true, KernelInitializer: efficientNetConvInit,
	}), x)
	x = layers.Apply(layers.Named("top_bn", &layers.BatchNormalization{Axis: 3, Momentum: efficientNetV2Momentum}), x)
	x = layers.Apply(layers.Named("top_activation", &layers.Activation{Fn: "swish"}), x)
	if o.ExcludeTop {
		x = o.pool(x, "avg_pool", "max_pool")
	} else {
		x = layers.Apply(layers.Named("avg_pool", &layers.GlobalAveragePooling2D{}), x)
		x = layers.Apply(layers.Named("top_dropout", &layers.Dropout{Rate: 0.2}), x)
		x = layers.Apply(layers.Named("predictions", &layers.Dense{
			Units: o.classes(), Activation: o.classifierActivation(), KernelInitializer: efficientNetDenseInit,
		}), x)
	}
	base := tfApplications + "efficientnet_v2/" + v.name
	files := imagenetWeights{network: v.network, top: base + ".h5", topHash: v.topHash, notop: base + "_notop.h5", notopHash: v.notopHash}
	return o.model(in, x, v.name, files)
}

// efficientNetV2Conv is one block of EfficientNetV2: Keras's MBConvBlock
// or FusedMBConvBlock, with its stochastic depth rate drop.
type efficientNetV2Conv struct {
	prefix                                        string
	filtersIn, filtersOut, kernel, stride, expand int
	squeeze                                       bool
	drop                                          float64
}

// conv is a convolution without bias with EfficientNet's initializer,
// "same" padded.
func (c efficientNetV2Conv) conv(x *layers.KerasTensor, name string, filters, kernel, stride int) *layers.KerasTensor {
	return layers.Apply(layers.Named(c.prefix+name, &layers.Conv2D{
		Filters: filters, KernelSize: [2]int{kernel, kernel}, Strides: [2]int{stride, stride}, Padding: "same", NoBias: true,
		KernelInitializer: efficientNetConvInit,
	}), x)
}

func (c efficientNetV2Conv) bn(x *layers.KerasTensor, name string) *layers.KerasTensor {
	return layers.Apply(layers.Named(c.prefix+name, &layers.BatchNormalization{Axis: 3, Momentum: efficientNetV2Momentum}), x)
}

func (c efficientNetV2Conv) swish(x *layers.KerasTensor, name string) *layers.KerasTensor {
	return layers.Apply(layers.Named(c.prefix+name, &layers.Activation{Fn: "swish"}), x)
}

// mbConv is Keras's MBConvBlock: a 1x1 expansion, a depthwise
// convolution, squeeze and excitation, a 1x1 projection.
func (c efficientNetV2Conv) mbConv(inputs *layers.KerasTensor) *layers.KerasTensor {
	x, filters := inputs, c.filtersIn*c.expand
	if c.expand != 1 {
		x = c.swish(c.bn(c.conv(x, "expand_conv", filters, 1, 1), "expand_bn"), "expand_activation")
	}
	x = layers.Apply(layers.Named(c.prefix+"dwconv2", &layers.DepthwiseConv2D{
		KernelSize: [2]int{c.kernel, c.kernel}, Strides: [2]int{c.stride, c.stride}, Padding: "same", NoBias: true,
	}), x)
	x = c.swish(c.bn(x, "bn"), "activation")
	x = c.squeezeExcite(x, filters)
	x = c.bn(c.conv(x, "project_conv", c.filtersOut, 1, 1), "project_bn")
	return c.residual(x, inputs)
}

// fused is Keras's FusedMBConvBlock: the expansion and the depthwise
// convolution fused into one full convolution.
func (c efficientNetV2Conv) fused(inputs *layers.KerasTensor) *layers.KerasTensor {
	x, filters := inputs, c.filtersIn*c.expand
	if c.expand != 1 {
		x = c.swish(c.bn(c.conv(x, "expand_conv", filters, c.kernel, c.stride), "expand_bn"), "expand_activation")
	}
	x = c.squeezeExcite(x, filters)
	if c.expand != 1 {
		x = c.bn(c.conv(x, "project_conv", c.filtersOut, 1, 1), "project_bn")
	} else {
		x = c.swish(c.bn(c.conv(x, "project_conv", c.filtersOut, c.kernel, c.stride), "project_bn"), "project_activation")
	}
	return c.residual(x, inputs)
}

// squeezeExcite scales x's channels by weights computed from their
// means, where the block has squeeze and excitation.
func (c efficientNetV2Conv) squeezeExcite(x *layers.KerasTensor, filters int) *layers.KerasTensor {
	if !c.squeeze {
		return x
	}
	return efficientNetSqueezeExcite(x, c.prefix, c.filtersIn, filters)
}

// residual adds the block's input where the shapes allow, after the
// stochastic depth dropout.
func (c efficientNetV2Conv) residual(x, inputs *layers.KerasTensor) *layers.KerasTensor {
	if c.stride != 1 || c.filtersIn != c.filtersOut {
		return x
	}
	return efficientNetResidual(x, inputs, c.prefix, c.drop)
}
