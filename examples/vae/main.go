// Command vae trains the variational autoencoder of Keras's example
// "Variational AutoEncoder" on Fashion-MNIST. The KL divergence of the
// latent distribution from a standard normal is added to the loss by a
// layer, Sampling, from its call (Keras's layer.add_loss); the compiled
// loss is the reconstruction's binary cross-entropy summed over the
// pixels. It prints the reconstruction loss of held-out images before and
// after training.
//
//	go run ./examples/vae -epochs 5
//
// The images come from Debian's dataset-fashion-mnist package
// (apt-get install dataset-fashion-mnist) or a copy in the kerasgo cache.
package main

import (
	"context"
	"fmt"
	"math"

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

const latent = 2 // the example's latent dimension

// Sampling draws z = mean + exp(logVar/2) * eps, eps ~ N(0, 1), from its
// two inputs (z_mean, z_log_var), and adds the KL divergence of that
// distribution from N(0, 1), averaged over the batch, to the loss.
type Sampling struct {
	layers.Base
}

// ClassName returns "Sampling".
func (*Sampling) ClassName() string { return "Sampling" }

// Build checks for two inputs of one shape.
func (*Sampling) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 2 || !in[0].Equal(in[1]) {
		return nil, fmt.Errorf("expects two inputs of one shape (z_mean, z_log_var), received %v", in)
	}
	return in[0].Clone(), nil
}

// Call samples z and adds the KL term.
func (*Sampling) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b, mean, logVar := ctx.B, in[0], in[1]
	// KL = -0.5 * sum(1 + logVar - mean^2 - exp(logVar)), per sample.
	kl := b.Mul(b.Scalar(-0.5), b.Sum(b.Sub(b.Sub(b.Add(b.Scalar(1), logVar), b.Square(mean)), b.Exp(logVar)), 1))
	ctx.AddLoss(b.Mean(kl))
	eps := b.RandomNormal(mean.Shape())
	return b.Add(mean, b.Mul(b.Exp(b.Mul(b.Scalar(0.5), logVar)), eps))
}

// reconstruction is the example's reconstruction loss: binary
// cross-entropy summed over the pixels, averaged over the batch.
func reconstruction(b backend.Builder, y, p backend.Value) backend.Value {
	const eps = 1e-7
	p = b.Minimum(b.Maximum(p, b.Scalar(eps)), b.Scalar(1-eps))
	one := b.Scalar(1)
	bce := b.Neg(b.Add(b.Mul(y, b.Log(p)), b.Mul(b.Sub(one, y), b.Log(b.Sub(one, p)))))
	return b.Mean(b.Sum(bce, 1, 2, 3))
}

// newVAE returns the example's encoder and decoder as one model from
// images to reconstructions, with f filters in the first convolution
// (the example's 32).
func newVAE(f int) (*keras.Model, error) {
	in := layers.Input(28, 28, 1)
	h := layers.Apply(&layers.Conv2D{Filters: f, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", Activation: "relu"}, in)
	h = layers.Apply(&layers.Conv2D{Filters: 2 * f, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", Activation: "relu"}, h)
	h = layers.Apply(&layers.Flatten{}, h)
	h = layers.Apply(&layers.Dense{Units: 16, Activation: "relu"}, h)
	zMean := layers.Apply(layers.Named("z_mean", &layers.Dense{Units: latent}), h)
	zLogVar := layers.Apply(layers.Named("z_log_var", &layers.Dense{Units: latent}), h)
	z := layers.Apply(&Sampling{}, zMean, zLogVar)
	d := layers.Apply(&layers.Dense{Units: 7 * 7 * 2 * f, Activation: "relu"}, z)
	d = layers.Apply(&layers.Reshape{TargetShape: []int{7, 7, 2 * f}}, d)
	d = layers.Apply(&layers.Conv2DTranspose{Filters: 2 * f, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", Activation: "relu"}, d)
	d = layers.Apply(&layers.Conv2DTranspose{Filters: f, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same", Activation: "relu"}, d)
	out := layers.Apply(&layers.Conv2DTranspose{Filters: 1, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "sigmoid"}, d)
	return keras.NewModel(in, out)
}

// result is the held-out reconstruction loss before and after training
// and the training loss (reconstruction + KL) of each epoch.
type result struct {
	before, after float64
	loss          []float64
}

func run(ctx context.Context, o example.Options, filters int) (result, error) {
	data, err := mnist.Load(ctx, "fashion", mnist.Options{})
	if err != nil {
		return result{}, err
	}
	n, nt := min(o.Train, data.Train.Count), min(o.Test, data.Test.Count)
	x := keras.Array{Shape: []int{n, 28, 28, 1}, Data: data.Train.ImagesFloat32()[:n*28*28]}
	xt := keras.Array{Shape: []int{nt, 28, 28, 1}, Data: data.Test.ImagesFloat32()[:nt*28*28]}
	m, err := newVAE(filters)
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 1e-3}, Loss: keras.LossOf(losses.FromFunc(reconstruction)), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	var r result
	if r.before, err = heldOut(ctx, m, xt); err != nil {
		return result{}, err
	}
	cbs := []callbacks.Callback{}
	if o.Timer != nil {
		cbs = append(cbs, o.Timer)
	}
	h, err := m.Fit(ctx, x, x, keras.FitOptions{Epochs: o.Epochs, BatchSize: 64, Verbose: o.Verbose, Seed: o.Seed, Callbacks: cbs})
	if err != nil {
		return result{}, err
	}
	r.loss = h.Logs["loss"]
	r.after, err = heldOut(ctx, m, xt)
	return r, err
}

// heldOut returns the reconstruction loss of xt, computed on the host
// from the model's predictions.
func heldOut(ctx context.Context, m *keras.Model, xt keras.Array) (float64, error) {
	p, err := m.Predict(ctx, xt, keras.PredictOptions{})
	if err != nil {
		return 0, err
	}
	total := 0.0
	for i, y := range xt.Data {
		q := math.Min(math.Max(float64(p.Data[i]), 1e-7), 1-1e-7)
		total -= float64(y)*math.Log(q) + (1-float64(y))*math.Log(1-q)
	}
	return total / float64(xt.Samples()), nil
}

func main() {
	o := example.ParseFlags(5, 60000, 2000)
	r, err := run(context.Background(), o, 32)
	example.Exit("vae", err)
	for e, l := range r.loss {
		fmt.Printf("epoch %d: loss (reconstruction + KL) %.2f\n", e+1, l)
	}
	fmt.Printf("held-out reconstruction loss: %.2f before training, %.2f after\n", r.before, r.after)
}
