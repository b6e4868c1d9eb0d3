package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// With strengths near 0, RandAugment's geometric augmentations,
// brightness and contrast are the identity, and the others are fixed
// transformations (posterization to 1 bit, solarization of everything
// above 0, AutoContrast, Equalization, colour degeneration and sharpness
// at strength 0): each training call must give the batch one of those,
// and the picks must vary from call to call. Outside training the input passes through.
func TestRandAugmentPicksOneAugmentation(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		x := images(2, 3, 3, 3, 0, 255)
		tiny := [2]float64{0, 1e-9}
		candidates := map[string]layers.Layer{
			"identity":     &layers.Identity{},
			"posterize":    &layers.RandomPosterization{FactorRange: [2]int{1, 1}},
			"solarize":     &layers.Solarization{AdditionFactorRange: tiny, ThresholdFactorRange: tiny},
			"autocontrast": &layers.AutoContrast{},
			"equalize":     &layers.Equalization{},
			"degenerate":   &layers.RandomColorDegeneration{FactorRange: tiny},
			"sharpen":      &layers.RandomSharpness{FactorRange: tiny},
		}
		want := map[string][]float64{}
		for name, c := range candidates {
			want[name] = trainingOutputs(t, be, c, x, 1)[0].Data
		}
		const calls = 12
		outs := trainingOutputs(t, be, &layers.RandAugment{NumOps: 1, FactorRange: tiny}, x, calls)
		picked := map[string]int{}
		for i, out := range outs {
			match := ""
			for name, w := range want {
				worst := 0.0
				for j := range w {
					worst = math.Max(worst, math.Abs(w[j]-out.Data[j]))
				}
				if worst < 1e-4 {
					match = name
				}
			}
			if match == "" {
				t.Fatalf("call %d: the output is none of the augmentations that strengths near 0 leave distinct", i)
			}
			picked[match]++
		}
		// 5 of 11 picks are the identity: the chance that 12 calls show
		// one kind only is below 1e-4.
		if len(picked) < 2 || picked["identity"] == calls {
			t.Errorf("%d training calls picked %v: the picks do not vary", calls, picked)
		}
		build(t, &layers.RandAugment{}, 3, 3, 3)
	})
}

func TestRandAugmentErrors(t *testing.T) {
	for _, c := range []struct {
		layer *layers.RandAugment
		want  string
	}{
		{&layers.RandAugment{Factor: 1.5}, "factor [0 1.5]: want a strength in [0, 1]"},
		{&layers.RandAugment{NumOps: -1}, "num_ops must be positive"},
		{&layers.RandAugment{Interpolation: "bicubic"}, `interpolation "bicubic"`},
	} {
		err := layers.Apply(c.layer, layers.Input(6, 6, 3)).Err()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "RandAugment") {
			t.Errorf("%v, want an error naming the layer and saying %q", err, c.want)
		}
	}
}
