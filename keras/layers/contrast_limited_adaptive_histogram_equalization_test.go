package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/layers"
)

// CLAHE's settings are checked when it is built: the tile grid, a
// clip limit that is not a number, and more tiles than pixels.
func TestCLAHEErrors(t *testing.T) {
	for _, c := range []struct {
		layer  *layers.ContrastLimitedAdaptiveHistogramEqualization
		sample []int
		want   string
	}{
		{&layers.ContrastLimitedAdaptiveHistogramEqualization{TileGridSize: [2]int{0, 2}}, []int{8, 8, 1}, "tile_grid_size must be two positive"},
		{&layers.ContrastLimitedAdaptiveHistogramEqualization{ClipLimit: math.Inf(1)}, []int{8, 8, 1}, "ClipLimit is +Inf"},
		{&layers.ContrastLimitedAdaptiveHistogramEqualization{}, []int{4, 9, 1}, "more tiles than the image of 4x9 pixels"},
	} {
		err := layers.Apply(c.layer, layers.Input(c.sample...)).Err()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "ContrastLimitedAdaptiveHistogramEqualization") {
			t.Errorf("%v, want an error naming the layer and saying %q", err, c.want)
		}
	}
}
