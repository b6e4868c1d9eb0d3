// Command imageclassification follows Keras's example "Image
// classification from scratch" (keras.io/examples/vision/
// image_classification_from_scratch) on a folder of images it draws
// itself, since the example's Cats vs Dogs download is not at hand: PNG
// files of horizontal and vertical stripes (the two classes) of random
// widths, phases and colours, one sub-folder per class. As the Keras example it reads
// the folder with ImageDatasetFromDirectory (an 80/20 split with a
// seed), augments in the model (RandomFlip, RandomRotation), rescales,
// trains a small convnet from the folder (decoded by loader goroutines
// as it trains), and classifies one file with LoadImg.
//
//	go run ./examples/imageclassification -epochs 8
//	go run ./examples/imageclassification -data ./stripes   # keep the folder
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// size is the side of the drawn images; the model reads them at 32x32.
const size = 40

// drawFolder writes n images per class into dir/horizontal and
// dir/vertical.
func drawFolder(dir string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, class := range []string{"horizontal", "vertical"} {
		if err := os.MkdirAll(filepath.Join(dir, class), 0o755); err != nil {
			return err
		}
		for i := range n {
			img := image.NewRGBA(image.Rect(0, 0, size, size))
			bg := color.RGBA{uint8(rng.IntN(90)), uint8(rng.IntN(90)), uint8(rng.IntN(90)), 255}
			fg := color.RGBA{uint8(140 + rng.IntN(116)), uint8(140 + rng.IntN(116)), uint8(140 + rng.IntN(116)), 255}
			period, phase := 4+rng.IntN(6), rng.IntN(10)
			for y := range size {
				for x := range size {
					along := y
					if class == "vertical" {
						along = x
					}
					if (along+phase)%period < period/2 {
						img.Set(x, y, fg)
					} else {
						img.Set(x, y, bg)
					}
				}
			}
			f, err := os.Create(filepath.Join(dir, class, fmt.Sprintf("%04d.png", i)))
			if err != nil {
				return err
			}
			err = png.Encode(f, img)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// newModel is the Keras example's model, smaller: augmentation, then
// Rescaling, then convolutions and a sigmoid unit (two classes).
func newModel() (*keras.Model, error) {
	return keras.NewSequential(
		&layers.InputLayer{Shape: []int{32, 32, 3}},
		&layers.RandomFlip{Mode: "horizontal"},
		&layers.RandomRotation{Factor: 0.1},
		&layers.Rescaling{Scale: 1.0 / 255},
		&layers.Conv2D{Filters: 16, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", Activation: "relu"},
		&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"},
		&layers.MaxPooling2D{},
		&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"},
		&layers.GlobalAveragePooling2D{},
		&layers.Dropout{Rate: 0.25},
		&layers.Dense{Units: 1, Activation: "sigmoid"},
	)
}

// result is the validation accuracy and one file's classification.
type result struct {
	valAccuracy float64
	file        string
	score       float32 // the model's probability that file has vertical stripes
}

func run(ctx context.Context, o example.Options, dir string) (result, error) {
	if err := drawFolder(dir, o.Train/2, uint64(o.Seed)); err != nil {
		return result{}, err
	}
	split := utils.ImageDatasetOptions{ValidationSplit: 0.2, Seed: 1337, ImageSize: [2]int{32, 32}, BatchSize: 32,
		LabelMode: "binary", Verbose: keras.Silent}
	train, val, err := utils.ImageDatasetsFromDirectory(dir, split)
	if err != nil {
		return result{}, err
	}
	m, err := newModel()
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"),
		Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	timer := o.Timer
	if timer == nil {
		timer = &example.Epochs{}
	}
	h, err := m.Fit(ctx, keras.Batches{Dataset: train, Workers: 2}, nil, keras.FitOptions{Epochs: o.Epochs, Verbose: o.Verbose,
		ValidationData: &keras.Data{X: keras.Batches{Dataset: val, Workers: 2}}, Callbacks: []callbacks.Callback{timer}, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	accs := h.Logs["val_accuracy"]
	r := result{valAccuracy: accs[len(accs)-1], file: filepath.Join(dir, "vertical", "0000.png")}
	// "Run inference on new data", as the Keras example does.
	img, err := utils.LoadImg(r.file, utils.LoadImgOptions{TargetSize: [2]int{32, 32}, Interpolation: "bilinear"})
	if err != nil {
		return result{}, err
	}
	x := utils.ImgToArray(img)
	score, err := m.Predict(ctx, keras.Array{Shape: append([]int{1}, x.Shape...), Data: x.Data}, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	r.score = score.Data[0]
	return r, nil
}

func main() {
	data := flag.String("data", "", "folder to draw the images into (default: a temporary one, removed after)")
	o := example.ParseFlags(8, 1000, 0)
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "stripes")
		example.Exit("imageclassification", err)
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	r, err := run(context.Background(), o, dir)
	example.Exit("imageclassification", err)
	fmt.Printf("Time per epoch: %.1f s\n", o.Timer.Mean())
	fmt.Printf("Validation accuracy: %.3f\n", r.valAccuracy)
	fmt.Printf("%s is %.0f%% vertical stripes and %.0f%% horizontal.\n", r.file, 100*r.score, 100*(1-r.score))
}
