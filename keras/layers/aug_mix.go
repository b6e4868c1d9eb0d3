package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/random"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// augMixAll and augMixFewer are Keras's AUGMENT_LAYERS_ALL and
// AUGMENT_LAYERS: the augmentations AugMix's chains pick from.
var (
	augMixAll = []string{"random_shear", "random_translation", "random_rotation", "random_posterization", "solarization",
		"auto_contrast", "equalization", "random_brightness", "random_color_degeneration", "random_contrast", "random_sharpness"}
	augMixFewer = augMixAll[:7]
)

// AugMix mixes each batch with augmented copies of itself during
// training, like keras.layers.AugMix (Hendrycks et al., 2020): NumChains
// chains of ChainDepth steps, each step one augmentation picked at
// random (or none) from Keras's list, with strengths from FactorRange;
// the chains' outputs are summed with Dirichlet(Alpha) weights, and the
// result is blended with the batch by a Beta(Alpha, Alpha) weight, then
// clipped to ValueRange. Outside training it passes its input through.
//
// kerasgo picks each step's augmentation at random in every training
// step, as Keras does when it runs eagerly (on PyTorch). Keras on JAX
// and TensorFlow picks them with Python's random module while it traces
// the step, so there they stay fixed for as long as the step is
// compiled. As RandAugment, a pick is made by computing every
// augmentation and keeping one: a step costs NumChains × ChainDepth ×
// the list's length augmentations.
type AugMix struct {
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// NumChains and ChainDepth are the number of chains and of steps per
	// chain; zero means Keras's 3 and 3.
	NumChains, ChainDepth int
	// Factor is the strength, in [0, 1]: the augmentations' strengths are
	// drawn from (0, Factor); zero means Keras's 0.3. FactorRange (lower,
	// upper) gives both ends instead.
	Factor      float64
	FactorRange [2]float64
	// Alpha is the Dirichlet and Beta parameter; zero means Keras's 1.
	Alpha float64
	// FewerOps leaves brightness, colour degeneration, contrast and
	// sharpness out of the list (Keras's all_ops=False).
	FewerOps bool
	// Interpolation of the geometric augmentations: "bilinear" (Keras's
	// default, when empty) or "nearest".
	Interpolation string
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base

	augs []Sublayer // the augmentations, as Keras's attributes
}

// ClassName returns "AugMix".
func (*AugMix) ClassName() string { return "AugMix" }

func (l *AugMix) chains() (int, int) {
	n, d := l.NumChains, l.ChainDepth
	if n == 0 {
		n = 3
	}
	if d == 0 {
		d = 3
	}
	return n, d
}

func (l *AugMix) alpha() float64 {
	if l.Alpha == 0 {
		return 1
	}
	return l.Alpha
}

func (l *AugMix) factor() ([2]float64, error) {
	return augmentationStrength(l.Factor, l.FactorRange, 0.3)
}

// Sublayers lists the augmentations under Keras's attribute names.
func (l *AugMix) Sublayers() []Sublayer { return l.augs }

// Build makes and builds the augmentations; the shape is unchanged.
func (l *AugMix) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if l.NumChains < 0 || l.ChainDepth < 0 {
		return nil, fmt.Errorf("num_chains and chain_depth must be positive, got %d and %d", l.NumChains, l.ChainDepth)
	}
	if !(l.Alpha >= 0) {
		return nil, fmt.Errorf("alpha must be positive, got %v", l.Alpha)
	}
	f, err := l.factor()
	if err != nil {
		return nil, err
	}
	names := augMixAll
	if l.FewerOps {
		names = augMixFewer
	}
	if l.augs, err = makeAugmentations(in, f, givenRange(l.ValueRange), l.Interpolation, names); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call mixes the batch with its augmented chains, in training.
func (l *AugMix) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	chains, depth := l.chains()
	g := random.Gamma(b, []int{chains}, l.alpha(), random.Stream())
	mixing := b.Div(g, b.Sum(g)) // Dirichlet(alpha), one weight per chain
	w := b.Reshape(random.Beta(b, []int{1}, l.alpha(), l.alpha(), random.Stream()), backend.Shape{1, 1, 1, 1})
	var mixed backend.Value
	for k := range chains {
		y := x
		for range depth {
			y = applyPicked(ctx, ImageData{Images: y}, l.augs, true).Images // Keras's py_random.choice(layers + [None])
		}
		term := b.Mul(y, b.Reshape(b.Slice(mixing, []int{k}, []int{1}), backend.Shape{1, 1, 1, 1}))
		if mixed == nil {
			mixed = term
		} else {
			mixed = b.Add(mixed, term)
		}
	}
	vr := givenRange(l.ValueRange)
	out := ops.Add(b, ops.Multiply(b, w, x), ops.Multiply(b, ops.Subtract(b, b.Scalar(1), w), mixed))
	return clip(b, out, vr[0], vr[1])
}

// GetConfig returns Keras's config.
func (l *AugMix) GetConfig() (serialization.Config, error) {
	f, err := l.factor()
	if err != nil {
		return nil, err
	}
	chains, depth := l.chains()
	vr := givenRange(l.ValueRange)
	return serialization.Config{"value_range": vr[:], "num_chains": chains, "chain_depth": depth, "factor": f[:],
		"alpha": serialization.Float(l.alpha()), "all_ops": !l.FewerOps, "interpolation": augmentationInterpolation(l.Interpolation),
		"seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: AugMix takes images of any size.
func (*AugMix) takesUnknownDims() {}

// trainsByDefault: Keras calls AugMix with training=True by default.
func (*AugMix) trainsByDefault() {}

func init() {
	mustRegister("AugMix", func(r *serialization.Reader) (Layer, error) {
		l := &AugMix{ValueRange: readValueRange(r, [2]float64{0, 255}), NumChains: r.PositiveInt("num_chains", 3),
			ChainDepth: r.PositiveInt("chain_depth", 3), Alpha: r.Float("alpha", 1), FewerOps: !r.Bool("all_ops", true),
			Interpolation: r.String("interpolation", "bilinear")}
		var err error
		if l.Factor, l.FactorRange, err = readAugmentationStrength(r); err != nil {
			return nil, err
		}
		r.Ignore("seed")
		expectChannelsLast(r)
		return l, nil
	})
}
