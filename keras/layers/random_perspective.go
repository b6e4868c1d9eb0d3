package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomPerspective warps some images by a random perspective during
// training, like keras.layers.RandomPerspective: an image is warped with
// a probability drawn per image from the factor's range; its corners
// (0, 0), (W-1, 0), (0, H-1), (W-1, H-1) move to p + p·d, d drawn per
// corner and axis from [-Scale/2, Scale/2) (as Keras scales by the
// corner's own coordinates, the corner at the origin stays), by
// ops.PerspectiveTransform with a constant fill. Outside training it
// passes its input through.
//
// A single Factor f gives the range (0, f); Keras's default factor and
// scale are 1, which the zero values are not: set them.
type RandomPerspective struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	Scale       float64    // in [0, 1]
	// Interpolation is "bilinear" (the default when empty) or "nearest".
	Interpolation string
	FillValue     float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomPerspective".
func (*RandomPerspective) ClassName() string { return "RandomPerspective" }

func (l *RandomPerspective) interpolation() string {
	if l.Interpolation == "" {
		return "bilinear"
	}
	return l.Interpolation
}

// Build checks the settings; the shape is unchanged.
func (l *RandomPerspective) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return nil, err
	}
	if l.Scale < 0 || l.Scale > 1 {
		return nil, fmt.Errorf("scale must be a number in [0, 1], got %v", l.Scale)
	}
	if err := checkImages(in); err != nil {
		return nil, err
	}
	return in.Clone(), checkTransformModes(l.interpolation(), "constant")
}

// Call warps the chosen images in training.
func (l *RandomPerspective) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b, s := ctx.B, x.Shape()
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	apply := coin(b, x, f[0], f[1])
	w, h := float64(s[2]-1), float64(s[1]-1)
	corners := make([]float64, 0, 8*s[0])
	for range s[0] {
		corners = append(corners, 0, 0, w, 0, 0, h, w, h)
	}
	start := b.Constant(corners, backend.Shape{s[0], 4, 2})
	d := b.Mul(b.Sub(b.RandomUniform(backend.Shape{s[0], 4, 2}), b.Scalar(0.5)), b.Scalar(l.Scale))
	end := b.Add(start, b.Mul(start, d))
	warped := ops.PerspectiveTransform(b, x, start, end, ops.PerspectiveTransformOptions{Interpolation: l.interpolation(), FillValue: l.FillValue})
	return ops.Where(b, apply, warped, x)
}

// GetConfig returns Keras's config.
func (l *RandomPerspective) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "scale": l.Scale, "interpolation": l.interpolation(), "fill_value": l.FillValue,
		"seed": nil, "data_format": "channels_last"}, nil
}

// trainsByDefault: Keras calls RandomPerspective with training=True by default.
func (*RandomPerspective) trainsByDefault() {}

func init() {
	mustRegister("RandomPerspective", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		l := &RandomPerspective{Factor: f, FactorRange: pair, Scale: r.Float("scale", 1), Interpolation: r.String("interpolation", "bilinear"),
			FillValue: r.Float("fill_value", 0)}
		r.Ignore("seed") // decides only which perspectives training draws
		expectChannelsLast(r)
		return l, nil
	})
}
