package applications

import (
	"fmt"
	"strconv"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// MobileNetV3Options are MobileNetV3Small's and MobileNetV3Large's
// arguments: Options and Keras's settings of the network's width and
// blocks.
type MobileNetV3Options struct {
	Options
	// Alpha scales the number of filters of every layer (Keras's alpha);
	// default 1.0. Keras's ImageNet weights exist for 0.75 and 1.0 (only
	// 1.0 when Minimalistic).
	Alpha float64
	// Minimalistic removes squeeze and excitation and hard swish, and
	// uses 3x3 depthwise convolutions only (Keras's minimalistic).
	Minimalistic bool
	// DropoutRate is the dropout before the classifier (Keras's
	// dropout_rate); nil means Keras's 0.2.
	DropoutRate *float64
	// ExcludePreprocessing leaves out the Rescaling layer that maps pixels
	// in [0, 255] to [-1, 1] (Keras's include_preprocessing=False).
	ExcludePreprocessing bool
}

// mobileNetV3Block is one row of Keras's stack_fn: an inverted residual
// block's expansion, output filters (before alpha), kernel (0: the
// network's, 5, or 3 when minimalistic), stride, whether it has squeeze
// and excitation (unless minimalistic), and whether it uses the network's
// activation (hard swish, unless minimalistic) or ReLU.
type mobileNetV3Block struct {
	expansion       float64
	filters, kernel int
	stride          int
	squeeze, netAct bool
}

// The blocks of MobileNetV3Small and MobileNetV3Large.
var (
	mobileNetV3SmallBlocks = []mobileNetV3Block{
		{1, 16, 3, 2, true, false},
		{72.0 / 16, 24, 3, 2, false, false},
		{88.0 / 24, 24, 3, 1, false, false},
		{4, 40, 0, 2, true, true},
		{6, 40, 0, 1, true, true},
		{6, 40, 0, 1, true, true},
		{3, 48, 0, 1, true, true},
		{3, 48, 0, 1, true, true},
		{6, 96, 0, 2, true, true},
		{6, 96, 0, 1, true, true},
		{6, 96, 0, 1, true, true},
	}
	mobileNetV3LargeBlocks = []mobileNetV3Block{
		{1, 16, 3, 1, false, false},
		{4, 24, 3, 2, false, false},
		{3, 24, 3, 1, false, false},
		{3, 40, 0, 2, true, false},
		{3, 40, 0, 1, true, false},
		{3, 40, 0, 1, true, false},
		{6, 80, 3, 2, false, true},
		{2.5, 80, 3, 1, false, true},
		{2.3, 80, 3, 1, false, true},
		{2.3, 80, 3, 1, false, true},
		{6, 112, 3, 1, true, true},
		{6, 112, 3, 1, true, true},
		{6, 160, 0, 2, true, true},
		{6, 160, 0, 1, true, true},
		{6, 160, 0, 1, true, true},
	}
)

// mobileNetV3Hashes are mobilenet_v3.py's WEIGHTS_HASHES (with and
// without the top) by Keras's model_name.
var mobileNetV3Hashes = map[string][2]string{
	"large_224_0.75_float":             {"765b44a33ad4005b3ac83185abf1d0eb", "40af19a13ebea4e2ee0c676887f69a2e"},
	"large_224_1.0_float":              {"59e551e166be033d707958cf9e29a6a7", "07fb09a5933dd0c8eaafa16978110389"},
	"large_minimalistic_224_1.0_float": {"675e7b876c45c57e9e63e6d90a36599c", "ec5221f64a2f6d1ef965a614bdae7973"},
	"small_224_0.75_float":             {"cb65d4e5be93758266aa0a7f2c6708b7", "ebdb5cc8e0b497cd13a7c275d475c819"},
	"small_224_1.0_float":              {"8768d4c2e7dee89b9d02b2d03d65d862", "d3e8ec802a04aa4fc771ee12a9a9b836"},
	"small_minimalistic_224_1.0_float": {"99cd97fb2fcdad2bf028eb838de69e37", "cde8136e733e811080d9fcd8a252f7e4"},
}

// MobileNetV3Small returns the small network of Howard et al. (2019), as
// keras.applications.MobileNetV3Small builds it: 2,554,968 parameters
// with the top at alpha 1.0. It takes pixels in [0, 255] and scales them
// itself (unless ExcludePreprocessing), so MobileNetV3PreprocessInput
// passes images through unchanged. Its default name is Keras's,
// "MobileNetV3Small".
func MobileNetV3Small(o MobileNetV3Options) (*keras.Model, error) {
	return mobileNetV3(o, "small", "MobileNetV3Small", mobileNetV3SmallBlocks, 1024)
}

// MobileNetV3Large returns the large network of Howard et al. (2019), as
// keras.applications.MobileNetV3Large builds it: 5,507,432 parameters
// with the top at alpha 1.0; as MobileNetV3Small otherwise.
func MobileNetV3Large(o MobileNetV3Options) (*keras.Model, error) {
	return mobileNetV3(o, "large", "MobileNetV3Large", mobileNetV3LargeBlocks, 1280)
}

// mobileNetV3Net builds one MobileNetV3 with Keras's automatic layer
// names.
type mobileNetV3Net struct {
	names        autoNames
	minimalistic bool
}

// activation is Keras's relu or hard_swish, automatically named.
func (n mobileNetV3Net) activation(x *layers.KerasTensor, hardSwish bool) *layers.KerasTensor {
	if hardSwish && !n.minimalistic {
		return layers.Apply(layers.Named(n.names.next("activation"), &layers.Activation{Fn: "hard_swish"}), x)
	}
	return layers.Apply(layers.Named(n.names.next("re_lu"), &layers.ReLU{}), x)
}

// hardSigmoid is Keras's hard_sigmoid: ReLU6(x + 3) * (1/6), two
// keras.ops operations around a ReLU layer.
func (n mobileNetV3Net) hardSigmoid(x *layers.KerasTensor) *layers.KerasTensor {
	x = layers.Apply(layers.Named(n.names.next("add"), &layers.Operation{Op: "Add", Constants: map[int]layers.Constant{1: {Data: []float64{3}}}}), x)
	x = layers.Apply(layers.Named(n.names.next("re_lu"), &layers.ReLU{MaxValue: 6}), x)
	return layers.Apply(layers.Named(n.names.next("multiply"), &layers.Operation{Op: "Multiply", Constants: map[int]layers.Constant{1: {Data: []float64{1.0 / 6}}}}), x)
}

func mobileNetV3BatchNorm(name string, x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.Named(name, &layers.BatchNormalization{Axis: -1, Epsilon: 1e-3, Momentum: 0.999}), x)
}

// mobileNetV3 is Keras's MobileNetV3 function.
func mobileNetV3(o MobileNetV3Options, size, defaultName string, blocks []mobileNetV3Block, lastPoint int) (*keras.Model, error) {
	name := defaultName
	shape, err := o.inputShapeFor(defaultSize, minSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	alpha := o.Alpha
	if alpha == 0 {
		alpha = 1
	}
	if alpha < 0 {
		return nil, fmt.Errorf("%s: alpha must be positive, got %v", name, alpha)
	}
	dropout := 0.2
	if o.DropoutRate != nil {
		dropout = *o.DropoutRate
	}
	modelName := size
	if o.Minimalistic {
		modelName += "_minimalistic"
	}
	modelName += "_224_" + strconv.FormatFloat(alpha, 'f', -1, 64)
	if alpha == float64(int(alpha)) {
		modelName += ".0" // Python's str(float(alpha))
	}
	modelName += "_float"
	if o.Weights == "imagenet" {
		if _, ok := mobileNetV3Hashes[modelName]; !ok {
			return nil, fmt.Errorf(`%s: weights "imagenet" exist for alpha 0.75 and 1.0, and for 1.0 only when minimalistic; got alpha %v, minimalistic %v`, name, alpha, o.Minimalistic)
		}
		// Keras loads the 224x224 weights for any image size (with a
		// warning): their shapes do not depend on it.
		if err := o.checkImagenet(shape, []int{anyImageSize}); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	kernel, seRatio := 5, 0.25
	if o.Minimalistic {
		kernel, seRatio = 3, 0
	}

	n := mobileNetV3Net{names: autoNames{}, minimalistic: o.Minimalistic}
	in := layers.Input(shape...)
	x := in
	if !o.ExcludePreprocessing {
		x = layers.Apply(layers.Named(n.names.next("rescaling"), &layers.Rescaling{Scale: 1 / 127.5, Offset: -1}), x)
	}
	x = layers.Apply(layers.Named("conv", &layers.Conv2D{
		Filters: 16, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", NoBias: true,
	}), x)
	x = mobileNetV3BatchNorm("conv_bn", x)
	x = n.activation(x, true)
	for id, b := range blocks {
		k := b.kernel
		if k == 0 {
			k = kernel
		}
		se := 0.0
		if b.squeeze {
			se = seRatio
		}
		x = n.invertedRes(x, b.expansion, makeDivisible(float64(b.filters)*alpha, 8), k, b.stride, se, b.netAct, id)
	}
	lastConv := makeDivisible(float64(x.Shape()[3]*6), 8)
	if alpha > 1 {
		lastPoint = makeDivisible(float64(lastPoint)*alpha, 8)
	}
	x = layers.Apply(layers.Named("conv_1", &layers.Conv2D{Filters: lastConv, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true}), x)
	x = mobileNetV3BatchNorm("conv_1_bn", x)
	x = n.activation(x, true)
	if o.ExcludeTop {
		x = o.pool(x, "avg_pool", "max_pool")
	} else {
		x = layers.Apply(layers.Named(n.names.next("global_average_pooling2d"), &layers.GlobalAveragePooling2D{KeepDims: true}), x)
		x = layers.Apply(layers.Named("conv_2", &layers.Conv2D{Filters: lastPoint, KernelSize: [2]int{1, 1}, Padding: "same"}), x)
		x = n.activation(x, true)
		if dropout > 0 {
			x = layers.Apply(layers.Named(n.names.next("dropout"), &layers.Dropout{Rate: dropout}), x)
		}
		x = layers.Apply(layers.Named("logits", &layers.Conv2D{Filters: o.classes(), KernelSize: [2]int{1, 1}, Padding: "same"}), x)
		x = layers.Apply(layers.Named(n.names.next("flatten"), &layers.Flatten{}), x)
		x = layers.Apply(layers.Named("predictions", &layers.Activation{Fn: o.classifierActivation()}), x)
	}
	hashes := mobileNetV3Hashes[modelName]
	base := tfApplications + "mobilenet_v3/weights_mobilenet_v3_" + modelName
	files := imagenetWeights{network: defaultName, top: base + ".h5", topHash: hashes[0], notop: base + "_no_top_v2.h5", notopHash: hashes[1]}
	return o.model(in, x, name, files)
}

// invertedRes is Keras's MobileNetV3 _inverted_res_block.
func (n mobileNetV3Net) invertedRes(x *layers.KerasTensor, expansion float64, filters, kernel, stride int, seRatio float64, netAct bool, id int) *layers.KerasTensor {
	shortcut := x
	prefix := "expanded_conv_"
	in := x.Shape()[3]
	expanded := makeDivisible(float64(in)*expansion, 8)
	if id > 0 {
		prefix = fmt.Sprintf("expanded_conv_%d_", id)
		x = layers.Apply(layers.Named(prefix+"expand", &layers.Conv2D{Filters: expanded, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true}), x)
		x = mobileNetV3BatchNorm(prefix+"expand_bn", x)
		x = n.activation(x, netAct)
	}
	x = depthwiseConv(x, prefix+"depthwise", prefix+"depthwise_pad", kernel, stride)
	x = mobileNetV3BatchNorm(prefix+"depthwise_bn", x)
	x = n.activation(x, netAct)
	if seRatio > 0 {
		x = n.squeezeExcite(x, expanded, seRatio, prefix)
	}
	x = layers.Apply(layers.Named(prefix+"project", &layers.Conv2D{Filters: filters, KernelSize: [2]int{1, 1}, Padding: "same", NoBias: true}), x)
	x = mobileNetV3BatchNorm(prefix+"project_bn", x)
	if stride == 1 && in == filters {
		x = layers.Apply(layers.Named(prefix+"add", &layers.Add{}), shortcut, x)
	}
	return x
}

// squeezeExcite is Keras's _se_block, with its hard sigmoid.
func (n mobileNetV3Net) squeezeExcite(inputs *layers.KerasTensor, filters int, ratio float64, prefix string) *layers.KerasTensor {
	x := layers.Apply(layers.Named(prefix+"squeeze_excite_avg_pool", &layers.GlobalAveragePooling2D{KeepDims: true}), inputs)
	x = layers.Apply(layers.Named(prefix+"squeeze_excite_conv", &layers.Conv2D{
		Filters: makeDivisible(float64(filters)*ratio, 8), KernelSize: [2]int{1, 1}, Padding: "same",
	}), x)
	x = layers.Apply(layers.Named(prefix+"squeeze_excite_relu", &layers.ReLU{}), x)
	x = layers.Apply(layers.Named(prefix+"squeeze_excite_conv_1", &layers.Conv2D{Filters: filters, KernelSize: [2]int{1, 1}, Padding: "same"}), x)
	x = n.hardSigmoid(x)
	return layers.Apply(layers.Named(prefix+"squeeze_excite_mul", &layers.Multiply{}), inputs, x)
}
