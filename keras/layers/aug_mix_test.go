package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// With one chain of one step and strengths near 0, AugMix's output is
// the batch blended with one fixed augmentation of it (or with itself):
// out = c + w·(x - c) for one candidate c and one weight w in [0, 1].
// A bigger mix stays in the value range.
func TestAugMixBlendsTheBatchWithAnAugmentation(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		x := images(2, 3, 3, 3, 0, 255)
		tiny := [2]float64{0, 1e-9}
		var candidates [][]float64
		for _, c := range []layers.Layer{&layers.Identity{}, &layers.RandomPosterization{FactorRange: [2]int{1, 1}},
			&layers.Solarization{AdditionFactorRange: tiny, ThresholdFactorRange: tiny}, &layers.AutoContrast{}, &layers.Equalization{},
			&layers.RandomColorDegeneration{FactorRange: tiny}, &layers.RandomSharpness{FactorRange: tiny}} {
			candidates = append(candidates, trainingOutputs(t, be, c, x, 1)[0].Data)
		}
		// The engines' draws are seeded (Eval compiles with seed 0), so
		// which augmentations the calls pick is the same on every run.
		changed := 0
		for i, out := range trainingOutputs(t, be, &layers.AugMix{NumChains: 1, ChainDepth: 1, FactorRange: tiny}, x, 8) {
			for j := range out.Data {
				if math.Abs(out.Data[j]-x.Data[j]) > 1e-6 {
					changed++
					break
				}
			}
			found := false
			for _, c := range candidates {
				num, den, worst := 0.0, 0.0, 0.0
				for j := range c {
					num += (out.Data[j] - c[j]) * (x.Data[j] - c[j])
					den += (x.Data[j] - c[j]) * (x.Data[j] - c[j])
				}
				w := 0.0
				if den > 0 {
					w = num / den
				}
				for j := range c {
					worst = math.Max(worst, math.Abs(c[j]+w*(x.Data[j]-c[j])-out.Data[j]))
				}
				if worst < 1e-3 && w >= -1e-9 && w <= 1+1e-9 {
					found = true
				}
			}
			if !found {
				t.Errorf("call %d: the output is no blend of the batch with one of the augmentations", i)
			}
		}
		if changed == 0 {
			t.Error("no call changed the batch: AugMix mixed nothing in")
		}
		out := trainingOutputs(t, be, &layers.AugMix{NumChains: 2, ChainDepth: 2}, x, 1)[0]
		for _, v := range out.Data {
			if !(v >= 0 && v <= 255) {
				t.Fatalf("a mix of two chains gave %v, outside the value range [0, 255]", v)
			}
		}
	})
}

func TestAugMixErrors(t *testing.T) {
	for _, c := range []struct {
		layer *layers.AugMix
		want  string
	}{
		{&layers.AugMix{FactorRange: [2]float64{0.5, 0.2}}, "factor [0.5 0.2]"},
		{&layers.AugMix{NumChains: -1}, "num_chains and chain_depth must be positive"},
		{&layers.AugMix{Alpha: -1}, "alpha must be positive"},
	} {
		err := layers.Apply(c.layer, layers.Input(6, 6, 3)).Err()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "AugMix") {
			t.Errorf("%v, want an error naming the layer and saying %q", err, c.want)
		}
	}
}
