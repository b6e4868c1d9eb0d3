package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandAugment applies NumOps augmentations to each batch during training,
// each picked at random from eleven, like keras.layers.RandAugment
// (Cubuk et al., 2019): RandomShear, RandomTranslation, RandomRotation,
// RandomBrightness, RandomColorDegeneration, RandomContrast,
// RandomSharpness, RandomPosterization, Solarization, AutoContrast and
// Equalization, their strengths drawn from FactorRange (Keras's factor).
// Outside training it passes its input through.
//
// As in Keras, an augmentation is picked per batch (every image of a
// batch gets the same ones, each with its own random strength) by
// computing all eleven and keeping one, so a step costs eleven
// augmentations per op. kerasgo draws the strengths afresh for each op;
// Keras draws them once per batch, so an augmentation picked twice is
// applied twice with the same strengths there.
type RandAugment struct {
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// NumOps is the number of augmentations per batch; zero means Keras's
	// 2.
	NumOps int
	// Factor is the strength, in [0, 1]: the augmentations' strengths are
	// drawn from (0, Factor); zero means Keras's 0.5. FactorRange (lower,
	// upper) gives both ends instead.
	Factor      float64
	FactorRange [2]float64
	// Interpolation of the geometric augmentations: "bilinear" (Keras's
	// default, when empty) or "nearest".
	Interpolation string
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base

	augs []Sublayer // the augmentations, in Keras's order, as its attributes
}

// ClassName returns "RandAugment".
func (*RandAugment) ClassName() string { return "RandAugment" }

func (l *RandAugment) numOps() int {
	if l.NumOps == 0 {
		return 2
	}
	return l.NumOps
}

// factor is the strength range (Keras's _set_factor).
func (l *RandAugment) factor() ([2]float64, error) {
	return augmentationStrength(l.Factor, l.FactorRange, 0.5)
}

// Sublayers lists the augmentations under Keras's attribute names.
func (l *RandAugment) Sublayers() []Sublayer { return l.augs }

// Build makes and builds the augmentations; the shape is unchanged.
func (l *RandAugment) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if l.NumOps < 0 {
		return nil, fmt.Errorf("num_ops must be positive, got %d", l.NumOps)
	}
	f, err := l.factor()
	if err != nil {
		return nil, err
	}
	if l.augs, err = makeAugmentations(in, f, givenRange(l.ValueRange), l.Interpolation, nil); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call applies NumOps augmentations, each picked at random, in
// training.
func (l *RandAugment) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData builds the augmentations for the images and their
// boxes, in the layer's box format; the shapes are unchanged.
func (l *RandAugment) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	if err := checkBoxShapes(l, in, l.BoundingBoxFormat); err != nil {
		return in, err
	}
	if _, err := l.Build([]backend.Shape{in.Images}); err != nil {
		return in, err
	}
	return in, buildAugmentationsFor(l.augs, in, l.BoundingBoxFormat)
}

// CallImageData applies NumOps augmentations, each picked at random,
// to the images and their boxes (each augmentation moves the boxes as
// it moves the pixels, as Keras's RandAugment.transform_bounding_boxes),
// in training.
func (l *RandAugment) CallImageData(ctx *Context, d ImageData) ImageData {
	if !ctx.Training {
		return d
	}
	for range l.numOps() {
		d = applyPicked(ctx, d, l.augs, false) // Keras's randint(0, 11)
	}
	return d
}

// GetConfig returns Keras's config.
func (l *RandAugment) GetConfig() (serialization.Config, error) {
	f, err := l.factor()
	if err != nil {
		return nil, err
	}
	vr := givenRange(l.ValueRange)
	return serialization.Config{"value_range": vr[:], "num_ops": l.numOps(), "factor": f[:], "interpolation": augmentationInterpolation(l.Interpolation),
		"seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandAugment takes images of any size.
func (*RandAugment) takesUnknownDims() {}

// trainsByDefault: Keras calls RandAugment with training=True by default.
func (*RandAugment) trainsByDefault() {}

func init() {
	mustRegister("RandAugment", func(r *serialization.Reader) (Layer, error) {
		l := &RandAugment{ValueRange: readValueRange(r, [2]float64{0, 255}), NumOps: r.PositiveInt("num_ops", 2),
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
