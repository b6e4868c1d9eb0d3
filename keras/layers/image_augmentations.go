package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// imageAugmentations makes the augmentations RandAugment and AugMix pick
// from, as Keras makes them from a strength range f, a value range and an
// interpolation, each under its Keras attribute name, in RandAugment's
// order; the geometric ones fill by reflection, as Keras's defaults do.
func imageAugmentations(f, vr [2]float64, interpolation string) []Sublayer {
	const fill = "reflect"
	bits := max(1, int(8*f[1]))
	return []Sublayer{
		{"random_shear", &RandomShear{XFactorRange: f, YFactorRange: f, FillMode: fill, Interpolation: interpolation}},
		{"random_translation", &RandomTranslation{HeightRange: f, WidthRange: f, FillMode: fill, Interpolation: interpolation}},
		{"random_rotation", &RandomRotation{FactorRange: f, FillMode: fill, Interpolation: interpolation}},
		{"random_brightness", &RandomBrightness{FactorRange: f, ValueRange: vr}},
		{"random_color_degeneration", &RandomColorDegeneration{FactorRange: f, ValueRange: vr}},
		{"random_contrast", &RandomContrast{FactorRange: f, ValueRange: vr}},
		{"random_sharpness", &RandomSharpness{FactorRange: f, ValueRange: vr}},
		{"random_posterization", &RandomPosterization{FactorRange: [2]int{1, bits}, ValueRange: vr}},
		{"solarization", &Solarization{AdditionFactorRange: f, ThresholdFactorRange: f, ValueRange: vr}},
		{"auto_contrast", &AutoContrast{ValueRange: vr}},
		{"equalization", &Equalization{ValueRange: vr}},
	}
}

// pickAugmentations returns the augmentations of subs with these names,
// in that order.
func pickAugmentations(subs []Sublayer, names []string) []Sublayer {
	var out []Sublayer
	for _, n := range names {
		for _, s := range subs {
			if s.Path == n {
				out = append(out, s)
			}
		}
	}
	return out
}

// makeAugmentations checks the interpolation and makes and builds, for
// images of shape in, the augmentations of these names (nil: all, in
// RandAugment's order), as RandAugment's and AugMix's Build do.
func makeAugmentations(in backend.Shape, f, vr [2]float64, interpolation string, names []string) ([]Sublayer, error) {
	if err := checkAugmentationInterpolation(interpolation); err != nil {
		return nil, err
	}
	subs := imageAugmentations(f, vr, interpolation)
	if names != nil {
		subs = pickAugmentations(subs, names)
	}
	return subs, buildAugmentations(subs, in)
}

// buildAugmentations names and builds each augmentation for images of
// shape in.
func buildAugmentations(subs []Sublayer, in backend.Shape) error {
	for _, s := range subs {
		s.Layer.Common().Name = s.Path
		if _, err := s.Layer.Build([]backend.Shape{in}); err != nil {
			return fmt.Errorf("its %s: %w", s.Layer.ClassName(), err)
		}
	}
	return nil
}

// augmentationStrength reads a strength in [0, 1] as Keras's _set_factor
// keeps it for RandAugment and AugMix: a single factor f is (0, f); the
// range, when given, wins; def is the default strength.
func augmentationStrength(factor float64, rng [2]float64, def float64) ([2]float64, error) {
	f := rng
	if f == ([2]float64{}) {
		f = [2]float64{0, def}
		if factor != 0 {
			f = [2]float64{0, factor}
		}
	}
	if f[0] < 0 || f[1] > 1 || f[0] > f[1] {
		return f, fmt.Errorf("factor %v: want a strength in [0, 1], or a range (lower, upper) within it", f)
	}
	return f, nil
}

// readAugmentationStrength reads Keras's "factor" of RandAugment or
// AugMix: a number or a pair.
func readAugmentationStrength(r *serialization.Reader) (factor float64, rng [2]float64, err error) {
	v, ok := r.Value("factor")
	if !ok || v == nil {
		return 0, rng, nil
	}
	if _, single := v.(float64); single {
		return r.Float("factor", 0), rng, nil
	}
	f := r.Floats("factor")
	if len(f) != 2 {
		return 0, rng, fmt.Errorf("factor %v: want a number or a pair (lower, upper)", v)
	}
	return 0, [2]float64{f[0], f[1]}, nil
}

// applyPicked applies to d one augmentation of augs picked at random for
// the whole batch (Keras's randint or random.choice), or, with orNone,
// possibly none of them (one more choice, which leaves d): every
// augmentation is computed and the picked one kept, as Keras's
// numpy.where does, for the images and their boxes alike.
func applyPicked(ctx *Context, d ImageData, augs []Sublayer, orNone bool) ImageData {
	b := ctx.B
	choices := len(augs)
	if orNone {
		choices++
	}
	pick := b.Floor(b.Mul(b.RandomUniform(backend.Shape{1}), b.Scalar(float64(choices))))
	out := d
	keep := func(chosen, v, prev backend.Value) backend.Value {
		if v == nil {
			return nil
		}
		return ops.Where(b, chosen, v, prev)
	}
	for k, a := range augs {
		chosen := b.Equal(pick, b.Constant([]float64{float64(k)}, backend.Shape{1}))
		t := callImageData(ctx, a.Layer, d)
		out = ImageData{Images: keep(chosen, t.Images, out.Images), Boxes: keep(chosen, t.Boxes, out.Boxes),
			BoxLabels: keep(chosen, t.BoxLabels, out.BoxLabels), Labels: keep(chosen, t.Labels, out.Labels),
			SegmentationMasks: keep(chosen, t.SegmentationMasks, out.SegmentationMasks)}
	}
	return out
}

// buildAugmentationsFor builds built augmentations for images with
// boxes in the given format (the augmentations take their holder's).
func buildAugmentationsFor(subs []Sublayer, in ImageDataShapes, format string) error {
	for _, s := range subs {
		if bf, ok := s.Layer.(boxFormatSetting); ok {
			*bf.boxFormat() = format
		}
		if _, err := buildImageData(s.Layer, in); err != nil {
			return fmt.Errorf("its %s: %w", s.Layer.ClassName(), err)
		}
	}
	return nil
}

// augmentationInterpolation is an interpolation setting with Keras's
// default, "bilinear".
func augmentationInterpolation(interpolation string) string {
	if interpolation == "" {
		return "bilinear"
	}
	return interpolation
}

// checkAugmentationInterpolation reports an interpolation the geometric
// augmentations do not take.
func checkAugmentationInterpolation(interpolation string) error {
	if interpolation != "" && interpolation != "bilinear" && interpolation != "nearest" {
		return fmt.Errorf("interpolation %q: use \"bilinear\" or \"nearest\"", interpolation)
	}
	return nil
}
