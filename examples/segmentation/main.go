// Command segmentation is Keras's example "Image segmentation with a
// U-Net-like architecture" (keras.io/examples/vision/oxford_pets_image_segmentation)
// on images it draws: discs and squares on a noisy background, each pixel
// labelled background, disc or square. The model is the page's: a strided
// entry convolution, downsampling blocks of separable convolutions with
// strided residual projections, upsampling blocks of transposed
// convolutions with upsampled residuals, and a per-pixel softmax.
//
//	go run ./examples/segmentation -epochs 10
//
// The page trains on the Oxford-IIIT Pets images (160×160, not
// downloaded here) for 50 epochs and shows predicted masks; this program
// uses 32×32 drawings and prints the held-out pixel accuracy and the
// intersection over union of each shape class.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

const (
	size    = 32
	classes = 3 // background, disc, square
)

// drawings returns n RGB images with one disc and one square each, and
// their masks (class per pixel).
func drawings(n int, seed uint64) (keras.Array, keras.Array) {
	r := rand.New(rand.NewPCG(seed, 6))
	x := keras.Array{Shape: []int{n, size, size, 3}, Data: make([]float32, n*size*size*3)}
	y := keras.Array{Shape: []int{n, size, size, 1}, Data: make([]float32, n*size*size)}
	for i := range n {
		img := x.Data[i*size*size*3 : (i+1)*size*size*3]
		mask := y.Data[i*size*size : (i+1)*size*size]
		for p := range img {
			img[p] = float32(0.3 * r.Float64())
		}
		paint := func(class int, inside func(row, col int) bool, color [3]float32) {
			for row := range size {
				for col := range size {
					if inside(row, col) {
						mask[row*size+col] = float32(class)
						for ch := range 3 {
							img[(row*size+col)*3+ch] = color[ch] + float32(0.1*r.Float64())
						}
					}
				}
			}
		}
		color := func() [3]float32 {
			return [3]float32{float32(0.4 + 0.5*r.Float64()), float32(0.4 + 0.5*r.Float64()), float32(0.4 + 0.5*r.Float64())}
		}
		cr, cc, rad := 6+r.IntN(20), 6+r.IntN(20), 3+r.IntN(4)
		paint(1, func(row, col int) bool { return (row-cr)*(row-cr)+(col-cc)*(col-cc) <= rad*rad }, color())
		sr, sc, side := r.IntN(24), r.IntN(24), 4+r.IntN(5)
		paint(2, func(row, col int) bool { return row >= sr && row < sr+side && col >= sc && col < sc+side }, color())
	}
	return x, y
}

// newUNet is the page's get_model with the filters given (the page's are
// 64, 128, 256 down and 256, 128, 64, 32 up, from a 32-filter entry).
func newUNet(entry int, filters []int) (*keras.Model, error) {
	in := layers.Input(size, size, 3)
	x := layers.Apply(&layers.Conv2D{Filters: entry, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}, in)
	x = layers.Apply(bn(), x)
	x = layers.Apply(&layers.Activation{Fn: "relu"}, x)
	previous := x
	for _, f := range filters {
		x = layers.Apply(&layers.Activation{Fn: "relu"}, x)
		x = layers.Apply(&layers.SeparableConv2D{Filters: f, KernelSize: [2]int{3, 3}, Padding: "same"}, x)
		x = layers.Apply(bn(), x)
		x = layers.Apply(&layers.Activation{Fn: "relu"}, x)
		x = layers.Apply(&layers.SeparableConv2D{Filters: f, KernelSize: [2]int{3, 3}, Padding: "same"}, x)
		x = layers.Apply(bn(), x)
		x = layers.Apply(&layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}, x)
		residual := layers.Apply(&layers.Conv2D{Filters: f, KernelSize: [2]int{1, 1}, Strides: [2]int{2, 2}, Padding: "same"}, previous)
		x = layers.Apply(&layers.Add{}, x, residual)
		previous = x
	}
	up := append(reversed(filters), entry)
	for _, f := range up {
		x = layers.Apply(&layers.Activation{Fn: "relu"}, x)
		x = layers.Apply(&layers.Conv2DTranspose{Filters: f, KernelSize: [2]int{3, 3}, Padding: "same"}, x)
		x = layers.Apply(bn(), x)
		x = layers.Apply(&layers.Activation{Fn: "relu"}, x)
		x = layers.Apply(&layers.Conv2DTranspose{Filters: f, KernelSize: [2]int{3, 3}, Padding: "same"}, x)
		x = layers.Apply(bn(), x)
		x = layers.Apply(&layers.UpSampling2D{Size: [2]int{2, 2}}, x)
		residual := layers.Apply(&layers.UpSampling2D{Size: [2]int{2, 2}}, previous)
		residual = layers.Apply(&layers.Conv2D{Filters: f, KernelSize: [2]int{1, 1}, Padding: "same"}, residual)
		x = layers.Apply(&layers.Add{}, x, residual)
		previous = x
	}
	out := layers.Apply(&layers.Conv2D{Filters: classes, KernelSize: [2]int{3, 3}, Activation: "softmax", Padding: "same"}, x)
	return keras.NewModel(in, out)
}

// bn is BatchNormalization with a moving-average momentum of 0.9 rather
// than Keras's 0.99: this program trains for a few hundred steps, not the
// page's thousands, and inference uses the moving statistics.
func bn() *layers.BatchNormalization { return &layers.BatchNormalization{Momentum: 0.9} }

func reversed(v []int) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[len(v)-1-i] = x
	}
	return out
}

// result is the held-out pixel accuracy, each shape class's intersection
// over union, and the training loss by epoch.
type result struct {
	accuracy float64
	iou      [classes]float64
	loss     []float64
}

func run(ctx context.Context, o example.Options, entry int, filters []int) (result, error) {
	x, y := drawings(o.Train, uint64(o.Seed))
	xt, yt := drawings(o.Test, uint64(o.Seed)+1)
	m, err := newUNet(entry, filters)
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 3e-3}, Loss: keras.Loss("sparse_categorical_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 32, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	p, err := m.Predict(ctx, xt, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	var r result
	r.loss = h.Logs["loss"]
	var inter, union [classes]float64
	right := 0
	for i, want := range yt.Data {
		probs := p.Data[i*classes : (i+1)*classes]
		got := 0
		for c := range probs {
			if probs[c] > probs[got] {
				got = c
			}
		}
		w := int(want)
		if got == w {
			right++
			inter[w]++
			union[w]++
		} else {
			union[w]++
			union[got]++
		}
	}
	r.accuracy = float64(right) / float64(len(yt.Data))
	for c := range r.iou {
		r.iou[c] = inter[c] / max(union[c], 1)
	}
	return r, nil
}

func main() {
	o := example.ParseFlags(10, 2000, 200)
	r, err := run(context.Background(), o, 32, []int{64, 128})
	example.Exit("segmentation", err)
	fmt.Printf("loss by epoch: %.4f\nheld-out pixel accuracy %.4f; IoU background %.3f, disc %.3f, square %.3f\n", r.loss, r.accuracy, r.iou[0], r.iou[1], r.iou[2])
}
