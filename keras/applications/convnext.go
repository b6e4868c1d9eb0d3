package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// ConvNeXtOptions are the ConvNeXt networks' arguments: Options and
// whether the model normalizes its input itself.
type ConvNeXtOptions struct {
	Options
	// ExcludePreprocessing leaves out the Normalization layer that
	// normalizes pixels in [0, 255] by ImageNet's mean and standard
	// deviation (Keras's include_preprocessing=False).
	ExcludePreprocessing bool
}

// convNeXtVariant is one of Keras's MODEL_CONFIGS, with its weight
// files' sha256 hashes (with and without the top).
type convNeXtVariant struct {
	network            string // Keras's constructor, for messages
	depths, dims       [4]int
	topHash, notopHash string
}

var convNeXtVariants = map[string]convNeXtVariant{
	"convnext_tiny": {"ConvNeXtTiny", [4]int{3, 3, 9, 3}, [4]int{96, 192, 384, 768},
		"8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff", "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"},
	"convnext_small": {"ConvNeXtSmall", [4]int{3, 3, 27, 3}, [4]int{96, 192, 384, 768},
		"ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c", "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"},
	"convnext_base": {"ConvNeXtBase", [4]int{3, 3, 27, 3}, [4]int{128, 256, 512, 1024},
		"52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6", "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"},
	"convnext_large": {"ConvNeXtLarge", [4]int{3, 3, 27, 3}, [4]int{192, 384, 768, 1536},
		"070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6", "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"},
	"convnext_xlarge": {"ConvNeXtXLarge", [4]int{3, 3, 27, 3}, [4]int{256, 512, 1024, 2048},
		"c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee", "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"},
}

// ConvNeXtTiny returns the network of Liu et al. (2022), as
// keras.applications.ConvNeXtTiny builds it: 28,589,128 parameters with
// the top, for 224x224x3 images. It takes pixels in [0, 255] and
// normalizes them itself (unless ExcludePreprocessing), so
// ConvNeXtPreprocessInput passes images through unchanged. Its default
// name is Keras's, "convnext_tiny".
func ConvNeXtTiny(o ConvNeXtOptions) (*keras.Model, error) { return convNeXt(o, "convnext_tiny") }

// ConvNeXtSmall is ConvNeXtTiny with 27 blocks in its third stage
// (50,223,688 parameters).
func ConvNeXtSmall(o ConvNeXtOptions) (*keras.Model, error) { return convNeXt(o, "convnext_small") }

// ConvNeXtBase is ConvNeXtSmall with 128 to 1024 channels (88,591,464
// parameters).
func ConvNeXtBase(o ConvNeXtOptions) (*keras.Model, error) { return convNeXt(o, "convnext_base") }

// ConvNeXtLarge is ConvNeXtSmall with 192 to 1536 channels (197,767,336
// parameters).
func ConvNeXtLarge(o ConvNeXtOptions) (*keras.Model, error) { return convNeXt(o, "convnext_large") }

// ConvNeXtXLarge is ConvNeXtSmall with 256 to 2048 channels (350,196,968
// parameters).
func ConvNeXtXLarge(o ConvNeXtOptions) (*keras.Model, error) { return convNeXt(o, "convnext_xlarge") }

// convNeXt is Keras's ConvNeXt function for one variant (no stochastic
// depth, Keras's default for all five, and layer scale 1e-6).
func convNeXt(o ConvNeXtOptions, variant string) (*keras.Model, error) {
	v := convNeXtVariants[variant]
	name := variant
	if o.Name != "" {
		name = o.Name
	}
	shape, err := o.imageShape(defaultSize, minSize, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", variant, err)
	}
	names := autoNames{}
	in := layers.Input(shape...)
	x := in
	if !o.ExcludePreprocessing && shape[2] == 3 {
		x = layers.Apply(layers.Named(name+"_prestem_normalization", &layers.Normalization{
			Axis:     []int{-1},
			Mean:     []float64{0.485 * 255, 0.456 * 255, 0.406 * 255},
			Variance: []float64{(0.229 * 255) * (0.229 * 255), (0.224 * 255) * (0.224 * 255), (0.225 * 255) * (0.225 * 255)},
		}), x)
	}
	for i := range 4 {
		var block *keras.Model
		if i == 0 {
			block, err = keras.NewSequential(
				&layers.InputLayer{Shape: x.Shape()[1:]},
				layers.Named(name+"_stem_conv", &layers.Conv2D{Filters: v.dims[0], KernelSize: [2]int{4, 4}, Strides: [2]int{4, 4}}),
				layers.Named(name+"_stem_layernorm", &layers.LayerNormalization{Epsilon: 1e-6}),
			)
			if err == nil {
				block.Name = name + "_stem"
			}
		} else {
			block, err = keras.NewSequential(
				&layers.InputLayer{Shape: x.Shape()[1:]},
				layers.Named(fmt.Sprintf("%s_downsampling_layernorm_%d", name, i-1), &layers.LayerNormalization{Epsilon: 1e-6}),
				layers.Named(fmt.Sprintf("%s_downsampling_conv_%d", name, i-1), &layers.Conv2D{Filters: v.dims[i], KernelSize: [2]int{2, 2}, Strides: [2]int{2, 2}}),
			)
			if err == nil {
				block.Name = fmt.Sprintf("%s_downsampling_block_%d", name, i-1)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", variant, err)
		}
		x = layers.Apply(block, x)
		for j := range v.depths[i] {
			x = convNeXtBlock(x, fmt.Sprintf("%s_stage_%d_block_%d", name, i, j), v.dims[i], names)
		}
	}
	if o.ExcludeTop {
		x = o.pool(x, "", "")
		x = layers.Apply(layers.Named(names.next("layer_normalization"), &layers.LayerNormalization{Epsilon: 1e-6}), x)
	} else {
		x = layers.Apply(layers.Named(name+"_head_gap", &layers.GlobalAveragePooling2D{}), x)
		x = layers.Apply(layers.Named(name+"_head_layernorm", &layers.LayerNormalization{Epsilon: 1e-6}), x)
		x = layers.Apply(layers.Named(name+"_head_dense", &layers.Dense{Units: o.classes(), Activation: o.classifierActivation()}), x)
	}
	base := tfApplications + "convnext/" + variant
	files := imagenetWeights{network: v.network, top: base + ".h5", topHash: v.topHash, notop: base + "_notop.h5", notopHash: v.notopHash}
	opts := o.Options
	opts.Name = name
	return opts.model(in, x, name, files)
}

// convNeXtBlock is Keras's ConvNeXtBlock: a 7x7 depthwise convolution
// (a Conv2D of as many groups as channels), layer normalization, two
// pointwise Dense layers around a GELU, LayerScale, and the residual
// added by a keras.ops add (Keras's `inputs + x`).
func convNeXtBlock(inputs *layers.KerasTensor, prefix string, dim int, names autoNames) *layers.KerasTensor {
	x := layers.Apply(layers.Named(prefix+"_depthwise_conv", &layers.Conv2D{
		Filters: dim, KernelSize: [2]int{7, 7}, Padding: "same", Groups: dim,
	}), inputs)
	x = layers.Apply(layers.Named(prefix+"_layernorm", &layers.LayerNormalization{Epsilon: 1e-6}), x)
	x = layers.Apply(layers.Named(prefix+"_pointwise_conv_1", &layers.Dense{Units: 4 * dim}), x)
	x = layers.Apply(layers.Named(prefix+"_gelu", &layers.Activation{Fn: "gelu"}), x)
	x = layers.Apply(layers.Named(prefix+"_pointwise_conv_2", &layers.Dense{Units: dim}), x)
	x = layers.Apply(layers.Named(prefix+"_layer_scale", &LayerScale{InitValues: 1e-6, ProjectionDim: dim, weightName: names.next("variable")}), x)
	x = layers.Apply(layers.Named(prefix+"_identity", &layers.Activation{Fn: "linear"}), x)
	return layers.Apply(layers.Named(names.next("add"), &layers.Operation{Op: "Add"}), inputs, x)
}
