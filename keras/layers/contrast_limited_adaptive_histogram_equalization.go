package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ContrastLimitedAdaptiveHistogramEqualization is CLAHE, like
// keras.layers.ContrastLimitedAdaptiveHistogramEqualization: each image
// is cut into TileGridSize tiles (its edges mirrored to a whole number
// of tiles), each channel of each tile is equalized by its own histogram
// of 256 bins, clipped at ClipLimit times the mean count with the excess
// spread over every bin, and each pixel takes the bilinear blend of the
// four nearest tiles' mappings, so that no tile boundary shows. The
// values are mapped from ValueRange to [0, 255] and back. It applies in
// training and at inference alike, as Keras's does.
//
// As in Keras, the histograms are counted with one-hot vectors: the
// layer holds 256 numbers per pixel while it runs. Its output has no
// gradient with respect to the image (Keras's counts cut it too).
type ContrastLimitedAdaptiveHistogramEqualization struct {
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// ClipLimit limits each histogram bin to ClipLimit times a tile's
	// mean count per bin; zero means Keras's 4, and a negative value
	// clips nothing (Keras's clip_limit <= 0).
	ClipLimit float64
	// TileGridSize is the number of tiles down and across; zero means
	// Keras's (8, 8).
	TileGridSize [2]int
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "ContrastLimitedAdaptiveHistogramEqualization".
func (*ContrastLimitedAdaptiveHistogramEqualization) ClassName() string {
	return "ContrastLimitedAdaptiveHistogramEqualization"
}

func (l *ContrastLimitedAdaptiveHistogramEqualization) clipLimit() float64 {
	if l.ClipLimit == 0 {
		return 4
	}
	return l.ClipLimit
}

func (l *ContrastLimitedAdaptiveHistogramEqualization) grid() [2]int {
	if l.TileGridSize == ([2]int{}) {
		return [2]int{8, 8}
	}
	return l.TileGridSize
}

// Build checks the settings; the shape is unchanged.
func (l *ContrastLimitedAdaptiveHistogramEqualization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if g := l.grid(); g[0] < 1 || g[1] < 1 {
		return nil, fmt.Errorf("tile_grid_size must be two positive numbers of tiles (down, across), got %v", l.TileGridSize)
	}
	if g := l.grid(); in[1] >= 0 && in[2] >= 0 && (g[0] > in[1] || g[1] > in[2]) {
		return nil, fmt.Errorf("tile_grid_size %v has more tiles than the image of %dx%d pixels has rows or columns", g, in[1], in[2])
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call equalizes each image.
func (l *ContrastLimitedAdaptiveHistogramEqualization) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	vr, full := givenRange(l.ValueRange), [2]float64{0, 255}
	x := b.StopGradient(toValueRange(b, in[0], vr, full))
	s := x.Shape()
	n, height, width, c := s[0], s[1], s[2], s[3]
	g := l.grid()
	th, tw := (height+g[0]-1)/g[0], (width+g[1]-1)/g[1]
	ph, pw := th*g[0], tw*g[1]
	padded := x
	if ph != height || pw != width {
		padded = ops.Pad(b, x, [][2]int{{0, 0}, {0, ph - height}, {0, pw - width}, {0, 0}}, ops.PadSymmetric, 0)
	}
	// One histogram per tile and channel: (n, g0, g1, c, 256).
	tiles := b.Transpose(b.Reshape(padded, backend.Shape{n, g[0], th, g[1], tw, c}), 0, 1, 3, 5, 2, 4)
	bins := b.Floor(clip(b, b.Reshape(tiles, backend.Shape{n, g[0], g[1], c, th * tw}), 0, 255))
	hist := b.Sum(b.OneHot(bins, 256), 4)
	count := float64(th * tw)
	if limit := l.clipLimit(); limit > 0 {
		clipped := clip(b, hist, 0, limit*count/256)
		excess := b.Sum(b.Sub(hist, clipped), 4)
		hist = ops.Add(b, clipped, b.Reshape(b.Div(excess, b.Scalar(256)), backend.Shape{n, g[0], g[1], c, 1}))
	}
	cdf := ops.Cumsum(b, hist, ops.Axis(4))
	low := ops.Min(b, cdf, ops.Axis(4), ops.KeepDims())
	den := ops.Subtract(b, b.Scalar(count), low)
	den = ops.Where(b, ops.Equal(b, den, b.Scalar(0)), b.Scalar(1), den)
	lut := clip(b, ops.Divide(b, b.Mul(ops.Subtract(b, cdf, low), b.Scalar(255)), den), 0, 255)
	// The tiles' mappings with a border of the edge tiles' copies, laid
	// out (n, c, tile·256) for lookups by tile and value.
	lut = ops.Pad(b, lut, [][2]int{{0, 0}, {1, 1}, {1, 1}, {0, 0}, {0, 0}}, ops.PadSymmetric, 0)
	gh, gw := g[0]+2, g[1]+2
	lut = b.Reshape(b.Transpose(lut, 0, 3, 1, 2, 4), backend.Shape{n, c, gh * gw * 256})
	y0, y1, wy := clahePositions(ph, th, g[0])
	x0, x1, wx := clahePositions(pw, tw, g[1])
	// Each pixel's value, (n, c, ph·pw), looked up in four tiles.
	pixels := b.Reshape(b.Transpose(b.Floor(clip(b, padded, 0, 255)), 0, 3, 1, 2), backend.Shape{n, c, ph * pw})
	corner := func(rows, cols []int) backend.Value {
		offsets := make([]float64, ph*pw)
		for i := range ph {
			for j := range pw {
				offsets[i*pw+j] = float64((rows[i]*gw + cols[j]) * 256)
			}
		}
		index := ops.Add(b, pixels, b.Constant(offsets, backend.Shape{1, 1, ph * pw}))
		return ops.TakeAlongAxis(b, lut, index, 2)
	}
	weights := func(w []float64, across bool) backend.Value {
		out := make([]float64, ph*pw)
		for i := range ph {
			for j := range pw {
				if across {
					out[i*pw+j] = w[j]
				} else {
					out[i*pw+j] = w[i]
				}
			}
		}
		return b.Constant(out, backend.Shape{1, 1, ph * pw})
	}
	wX, wY := weights(wx, true), weights(wy, false)
	one := b.Scalar(1)
	blend := func(a, z, w backend.Value) backend.Value {
		return b.Add(ops.Multiply(b, a, ops.Subtract(b, one, w)), ops.Multiply(b, z, w))
	}
	out := blend(blend(corner(y0, x0), corner(y0, x1), wX), blend(corner(y1, x0), corner(y1, x1), wX), wY)
	out = b.Transpose(b.Reshape(out, backend.Shape{n, c, ph, pw}), 0, 2, 3, 1)
	if ph != height || pw != width {
		out = b.Slice(out, []int{0, 0, 0, 0}, []int{n, height, width, c})
	}
	return toValueRange(b, out, full, vr)
}

// clahePositions gives, for each of size pixels along an axis of tiles
// of length tile (grid of them), the two bordered tiles it blends and
// the weight of the second, as Keras computes them.
func clahePositions(size, tile, grid int) (first, second []int, weight []float64) {
	first, second, weight = make([]int, size), make([]int, size), make([]float64, size)
	for i := range size {
		pos := (float32(i)-float32(tile)/2)/float32(tile) + 1 // in float32, as Keras
		lo := float32(math.Floor(float64(pos)))
		weight[i] = float64(pos - lo)
		first[i] = int(min(max(lo, 0), float32(grid+1)))
		second[i] = int(min(max(lo+1, 0), float32(grid+1)))
	}
	return first, second, weight
}

// GetConfig returns Keras's config.
func (l *ContrastLimitedAdaptiveHistogramEqualization) GetConfig() (serialization.Config, error) {
	vr, g := givenRange(l.ValueRange), l.grid()
	limit := l.clipLimit()
	if limit < 0 {
		limit = 0
	}
	return serialization.Config{"value_range": vr[:], "clip_limit": limit, "tile_grid_size": g[:], "data_format": "channels_last"}, nil
}

// takesUnknownDims: the layer takes images of any size.
func (*ContrastLimitedAdaptiveHistogramEqualization) takesUnknownDims() {}

// trainsByDefault: Keras calls it with training=True by default.
func (*ContrastLimitedAdaptiveHistogramEqualization) trainsByDefault() {}

func init() {
	mustRegister("ContrastLimitedAdaptiveHistogramEqualization", func(r *serialization.Reader) (Layer, error) {
		l := &ContrastLimitedAdaptiveHistogramEqualization{ValueRange: readValueRange(r, [2]float64{0, 255}), ClipLimit: r.Float("clip_limit", 4)}
		if l.ClipLimit <= 0 {
			l.ClipLimit = -1 // Keras's clip_limit <= 0: no clipping
		}
		g := r.PositivePair("tile_grid_size", [2]int{8, 8})
		l.TileGridSize = g
		expectChannelsLast(r)
		return l, nil
	})
}
