package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// VarianceScaling draws with a spread that follows the weight's fans, as
// keras.initializers.VarianceScaling: n is fan_in, fan_out or their mean
// (Mode); "truncated_normal" draws from a normal truncated at two
// deviations with stddev sqrt(Scale/n)/.87962566103423978,
// "untruncated_normal" from a normal with stddev sqrt(Scale/n), "uniform"
// from U(-l, l) with l = sqrt(3*Scale/n). The zero value is Keras's
// default: Scale 1, "fan_in", "truncated_normal" (LecunNormal).
// Keras's Glorot, He and Lecun initializers are its presets.
type VarianceScaling struct {
	Scale        float64 // default 1
	Mode         string  // "fan_in" (default), "fan_out" or "fan_avg"
	Distribution string  // "truncated_normal" (default), "untruncated_normal" or "uniform"
}

// LecunNormal is keras.initializers.LecunNormal:
// VarianceScaling{Scale: 1, Mode: "fan_in", Distribution: "truncated_normal"}.
var LecunNormal = VarianceScaling{Scale: 1, Mode: "fan_in", Distribution: "truncated_normal"}

// LecunUniform is keras.initializers.LecunUniform:
// VarianceScaling{Scale: 1, Mode: "fan_in", Distribution: "uniform"}.
var LecunUniform = VarianceScaling{Scale: 1, Mode: "fan_in", Distribution: "uniform"}

// presets are Keras's named VarianceScaling settings.
var presets = map[VarianceScaling]string{
	LecunNormal:  "lecun_normal",
	LecunUniform: "lecun_uniform",
	{Scale: 1, Mode: "fan_avg", Distribution: "truncated_normal"}: "glorot_normal",
	{Scale: 1, Mode: "fan_avg", Distribution: "uniform"}:          "glorot_uniform",
	{Scale: 2, Mode: "fan_in", Distribution: "truncated_normal"}:  "he_normal",
	{Scale: 2, Mode: "fan_in", Distribution: "uniform"}:           "he_uniform",
}

func (v VarianceScaling) resolved() VarianceScaling {
	if v.Scale == 0 {
		v.Scale = 1
	}
	if v.Mode == "" {
		v.Mode = "fan_in"
	}
	if v.Distribution == "" {
		v.Distribution = "truncated_normal"
	}
	return v
}

// Name returns Keras's name for a preset ("lecun_normal", "he_uniform",
// ...), else "variance_scaling(scale=..., mode=..., distribution=...)".
func (v VarianceScaling) Name() string {
	r := v.resolved()
	if n, ok := presets[r]; ok {
		return n
	}
	return spec("variance_scaling", "scale", r.Scale, "mode", r.Mode, "distribution", r.Distribution)
}

func (v VarianceScaling) check() error {
	r := v.resolved()
	if !(r.Scale > 0) || math.IsInf(r.Scale, 0) {
		return fmt.Errorf("the scale must be a positive number, got %v", r.Scale)
	}
	switch r.Mode {
	case "fan_in", "fan_out", "fan_avg":
	default:
		return fmt.Errorf("the mode must be fan_in, fan_out or fan_avg, got %q", r.Mode)
	}
	switch r.Distribution {
	case "truncated_normal", "untruncated_normal", "uniform":
	default:
		return fmt.Errorf("the distribution must be truncated_normal, untruncated_normal or uniform, got %q", r.Distribution)
	}
	return nil
}

// Init implements Initializer.
func (v VarianceScaling) Init(s backend.Shape, rng *rand.Rand) []float32 {
	r := v.resolved()
	in, out := fans(s)
	n := in
	switch r.Mode {
	case "fan_out":
		n = out
	case "fan_avg":
		n = (in + out) / 2
	}
	n = math.Max(1, n)
	switch r.Distribution {
	case "uniform":
		return uniform(s, rng, math.Sqrt(3*r.Scale/n))
	case "untruncated_normal":
		return normal(s, rng, 0, math.Sqrt(r.Scale/n))
	}
	return truncatedNormal(s, rng, math.Sqrt(r.Scale/n)/.87962566103423978)
}

func (v VarianceScaling) kerasObject() (string, serialization.Config) {
	r := v.resolved()
	switch presets[r] {
	case "lecun_normal":
		return "LecunNormal", serialization.Config{"seed": nil}
	case "lecun_uniform":
		return "LecunUniform", serialization.Config{"seed": nil}
	case "glorot_normal":
		return "GlorotNormal", serialization.Config{"seed": nil}
	case "glorot_uniform":
		return "GlorotUniform", serialization.Config{"seed": nil}
	case "he_normal":
		return "HeNormal", serialization.Config{"seed": nil}
	case "he_uniform":
		return "HeUniform", serialization.Config{"seed": nil}
	}
	return "VarianceScaling", serialization.Config{"scale": r.Scale, "mode": r.Mode, "distribution": r.Distribution, "seed": nil}
}
