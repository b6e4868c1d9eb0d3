// Command gan trains the GAN of Keras's guide "Customizing what happens
// in fit()" on Fashion-MNIST: a convolutional discriminator and a
// generator that upsamples a latent vector with transposed convolutions,
// trained by Fit with a training step of its own (two optimizers: the
// discriminator's, then the generator's, which sees the discriminator
// just updated). It prints each epoch's d_loss and g_loss and writes a
// grid of generated images.
//
//	go run ./examples/gan -epochs 5 -out gan.png
//
// The images come from Debian's dataset-fashion-mnist package
// (apt-get install dataset-fashion-mnist) or a copy in the kerasgo cache.
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// sizes are the networks' widths: the guide's are latent 128 and 64/128
// filters; the test trains narrower ones.
type sizes struct {
	latent, filters int
}

// gan is the guide's GAN model: its parts, its loss and its two
// optimizers (Keras's GAN.compile(d_optimizer, g_optimizer, loss_fn)).
type gan struct {
	discriminator, generator, combined *keras.Model
	latent                             int
	loss                               losses.BinaryCrossentropy
	dOpt, gOpt                         optimizers.Optimizer
}

func newGAN(s sizes) (*gan, error) {
	f := s.filters
	discriminator, err := keras.NewSequential(&layers.InputLayer{Shape: []int{28, 28, 1}},
		&layers.Conv2D{Filters: f, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"},
		&layers.LeakyReLU{NegativeSlope: 0.2},
		&layers.Conv2D{Filters: 2 * f, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"},
		&layers.LeakyReLU{NegativeSlope: 0.2},
		&layers.GlobalMaxPooling2D{},
		&layers.Dense{Units: 1},
	)
	if err != nil {
		return nil, err
	}
	discriminator.Name = "discriminator"
	generator, err := keras.NewSequential(&layers.InputLayer{Shape: []int{s.latent}},
		&layers.Dense{Units: 7 * 7 * 2 * f},
		&layers.LeakyReLU{NegativeSlope: 0.2},
		&layers.Reshape{TargetShape: []int{7, 7, 2 * f}},
		&layers.Conv2DTranspose{Filters: 2 * f, KernelSize: [2]int{4, 4}, Strides: [2]int{2, 2}, Padding: "same"},
		&layers.LeakyReLU{NegativeSlope: 0.2},
		&layers.Conv2DTranspose{Filters: 2 * f, KernelSize: [2]int{4, 4}, Strides: [2]int{2, 2}, Padding: "same"},
		&layers.LeakyReLU{NegativeSlope: 0.2},
		&layers.Conv2D{Filters: 1, KernelSize: [2]int{7, 7}, Padding: "same", Activation: "sigmoid"},
	)
	if err != nil {
		return nil, err
	}
	generator.Name = "generator"
	// The model Fit trains holds both parts' variables: the generator
	// followed by the discriminator.
	z := layers.Input(s.latent)
	combined, err := keras.NewModel(z, layers.Apply(discriminator, layers.Apply(generator, z)))
	if err != nil {
		return nil, err
	}
	combined.Name = "gan"
	return &gan{
		discriminator: discriminator, generator: generator, combined: combined, latent: s.latent,
		loss: losses.BinaryCrossentropy{FromLogits: true},
		dOpt: &optimizers.Adam{LearningRate: 3e-4}, gOpt: &optimizers.Adam{LearningRate: 3e-4},
	}, nil
}

// trainStep is the guide's train_step: the discriminator learns to tell
// generated images (label 1) from real ones (label 0), with a little noise
// on the labels; then the generator learns to make the discriminator say
// "real" (0) for its images.
func (g *gan) trainStep(s *keras.Step, data keras.StepData) (keras.StepLogs, error) {
	real := data.X[0]
	n := real.Shape()[0]
	z := s.RandomNormal(backend.Shape{n, g.latent})
	generated := s.Call(g.generator, true, z)[0]
	combined := s.Concat(0, generated, real)
	labels := s.Concat(0, s.Constant(filled(n, 1), backend.Shape{n, 1}), s.Constant(filled(n, 0), backend.Shape{n, 1}))
	labels = s.Add(labels, s.Mul(s.Scalar(0.05), s.RandomUniform(labels.Shape())))
	dLoss := g.loss.Compute(s, labels, s.Call(g.discriminator, true, combined)[0])
	dVars := g.discriminator.TrainableWeights()
	s.Apply(g.dOpt, s.Gradients(dLoss, dVars), dVars)

	z = s.RandomNormal(backend.Shape{n, g.latent})
	misleading := s.Constant(filled(n, 0), backend.Shape{n, 1})
	gLoss := g.loss.Compute(s, misleading, s.Call(g.combined, true, z)[0])
	gVars := g.generator.TrainableWeights()
	s.Apply(g.gOpt, s.Gradients(gLoss, gVars), gVars)
	return keras.StepLogs{{Name: "d_loss", Value: dLoss}, {Name: "g_loss", Value: gLoss}}, nil
}

func filled(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// result is each epoch's mean d_loss and g_loss, and generated images.
type result struct {
	dLoss, gLoss []float64
	samples      keras.Array
}

func run(ctx context.Context, o example.Options, s sizes) (result, error) {
	data, err := mnist.Load(ctx, "fashion", mnist.Options{})
	if err != nil {
		return result{}, err
	}
	n := min(o.Train, data.Train.Count)
	x := keras.Array{Shape: []int{n, 28, 28, 1}, Data: data.Train.ImagesFloat32()[:n*28*28]}
	g, err := newGAN(s)
	if err != nil {
		return result{}, err
	}
	if err := g.combined.Compile(keras.CompileOptions{TrainStep: g.trainStep, Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	cbs := []callbacks.Callback{}
	if o.Timer != nil {
		cbs = append(cbs, o.Timer)
	}
	h, err := g.combined.Fit(ctx, x, nil, keras.FitOptions{Epochs: o.Epochs, BatchSize: 64, Verbose: o.Verbose, Seed: o.Seed, Callbacks: cbs})
	if err != nil {
		return result{}, err
	}
	z := keras.Array{Shape: []int{16, s.latent}, Data: make([]float32, 16*s.latent)}
	for i := range z.Data {
		z.Data[i] = float32((i*7919)%101)/50 - 1
	}
	samples, err := g.generator.Predict(ctx, z, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	return result{dLoss: h.Logs["d_loss"], gLoss: h.Logs["g_loss"], samples: samples}, nil
}

// writeGrid writes the 16 generated images as a 4x4 PNG.
func writeGrid(path string, a keras.Array) error {
	img := image.NewGray(image.Rect(0, 0, 4*28, 4*28))
	for k := range 16 {
		for r := range 28 {
			for c := range 28 {
				v := a.Data[k*28*28+r*28+c]
				img.SetGray((k%4)*28+c, (k/4)*28+r, color.Gray{Y: uint8(max(0, min(1, v)) * 255)})
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func main() {
	out := flag.String("out", "gan.png", "PNG file for 16 generated images")
	latent := flag.Int("latent", 128, "latent dimension (the guide's 128)")
	filters := flag.Int("filters", 64, "the discriminator's first filters (the guide's 64)")
	o := example.ParseFlags(1, 60000, 0)
	r, err := run(context.Background(), o, sizes{latent: *latent, filters: *filters})
	example.Exit("gan", err)
	for e := range r.dLoss {
		fmt.Printf("epoch %d: d_loss %.4f, g_loss %.4f\n", e+1, r.dLoss[e], r.gLoss[e])
	}
	example.Exit("gan", writeGrid(*out, r.samples))
	fmt.Println("wrote", *out)
}
