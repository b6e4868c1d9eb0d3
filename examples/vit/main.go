// Command vit is Keras's example "Image classification with Vision
// Transformer" (keras.io/examples/vision/image_classification_with_vision_transformer)
// on Fashion-MNIST: a Patches layer cuts each image into patches with
// ops.ExtractPatches, a PatchEncoder (a layer holding a Dense projection
// and an Embedding of the positions) encodes them, transformer blocks of
// multi-head self-attention and a GELU MLP follow, and an MLP head
// classifies.
//
//	go run ./examples/vit -epochs 10
//
// The page trains on CIFAR-100 images resized to 72×72 (6×6 patches, 8
// blocks of 4 heads, 100 epochs) to a test accuracy of about 55% top-1;
// this program uses 28×28 images in 7×7 patches and a smaller model. The
// images come from Debian's dataset-fashion-mnist package (apt-get
// install dataset-fashion-mnist) or a copy in the kerasgo cache.
package main

import (
	"context"
	"fmt"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// Patches is the page's Patches layer: images (batch, h, w, c) to
// (batch, patches, size·size·c).
type Patches struct {
	Size int
	layers.Base
}

// ClassName returns "Patches".
func (*Patches) ClassName() string { return "Patches" }

// Build checks that the patches tile the images.
func (p *Patches) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 1 || len(in[0]) != 4 || in[0][1]%p.Size != 0 || in[0][2]%p.Size != 0 {
		return nil, fmt.Errorf("expects images (batch, height, width, channels) that %d×%d patches tile, received %v", p.Size, p.Size, in)
	}
	s := in[0]
	return backend.Shape{s[0], (s[1] / p.Size) * (s[2] / p.Size), p.Size * p.Size * s[3]}, nil
}

// Call extracts the patches and flattens their grid.
func (p *Patches) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	patches := ops.ExtractPatches(ctx.B, in[0], []int{p.Size, p.Size}, ops.ConvOptions{})
	s := patches.Shape()
	return ops.Reshape(ctx.B, patches, s[0], s[1]*s[2], s[3])
}

// PatchEncoder is the page's PatchEncoder: a Dense projection of each
// patch plus a learned embedding of its position; it holds both layers.
type PatchEncoder struct {
	layers.Base
	NumPatches int               `keras:"-"`
	Projection *layers.Dense     `keras:"projection"`
	Position   *layers.Embedding `keras:"position_embedding"`
}

// NewPatchEncoder returns an encoder of numPatches patches into dim.
func NewPatchEncoder(numPatches, dim int) *PatchEncoder {
	return &PatchEncoder{NumPatches: numPatches, Projection: &layers.Dense{Units: dim}, Position: &layers.Embedding{InputDim: numPatches, OutputDim: dim}}
}

// ClassName returns "PatchEncoder".
func (*PatchEncoder) ClassName() string { return "PatchEncoder" }

// Build builds the projection and the position embedding.
func (e *PatchEncoder) Build(in []backend.Shape) (backend.Shape, error) {
	out, err := e.Projection.Build(in)
	if err != nil {
		return nil, err
	}
	if _, err := e.Position.Build([]backend.Shape{{e.NumPatches}}); err != nil {
		return nil, err
	}
	return out, nil
}

// Call adds each position's embedding to the projected patches.
func (e *PatchEncoder) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	positions := ops.Arange(ctx.B, 0, float64(e.NumPatches), 1)
	return ops.Add(ctx.B, e.Projection.Call(ctx, in), e.Position.Call(ctx, []backend.Value{positions}))
}

// Config sizes the model.
type Config struct {
	PatchSize, Dim, Heads, Blocks, Classes int
	MLPUnits                               []int // the head's
}

// newViT is the page's create_vit_classifier: patches, their encoding,
// blocks of (LayerNormalization, self-attention, residual,
// LayerNormalization, a GELU MLP, residual), then LayerNormalization,
// Flatten, Dropout, the MLP head and the logits.
func newViT(c Config) (*keras.Model, error) {
	in := layers.Input(28, 28, 1)
	numPatches := (28 / c.PatchSize) * (28 / c.PatchSize)
	x := layers.Apply(&Patches{Size: c.PatchSize}, in)
	x = layers.Apply(NewPatchEncoder(numPatches, c.Dim), x)
	for range c.Blocks {
		x1 := layers.Apply(&layers.LayerNormalization{Epsilon: 1e-6}, x)
		attn := layers.Apply(&layers.MultiHeadAttention{NumHeads: c.Heads, KeyDim: c.Dim, Dropout: 0.1}, x1, x1)
		x2 := layers.Apply(&layers.Add{}, attn, x)
		x3 := layers.Apply(&layers.LayerNormalization{Epsilon: 1e-6}, x2)
		x3 = mlp(x3, []int{2 * c.Dim, c.Dim}, 0.1)
		x = layers.Apply(&layers.Add{}, x3, x2)
	}
	x = layers.Apply(&layers.LayerNormalization{Epsilon: 1e-6}, x)
	x = layers.Apply(&layers.Flatten{}, x)
	x = layers.Apply(&layers.Dropout{Rate: 0.5}, x)
	x = mlp(x, c.MLPUnits, 0.5)
	return keras.NewModel(in, layers.Apply(&layers.Dense{Units: c.Classes}, x))
}

// mlp is the page's mlp: Dense layers with GELU, each followed by
// dropout.
func mlp(x *layers.KerasTensor, units []int, rate float64) *layers.KerasTensor {
	for _, u := range units {
		x = layers.Apply(&layers.Dense{Units: u, Activation: "gelu"}, x)
		x = layers.Apply(&layers.Dropout{Rate: rate}, x)
	}
	return x
}

// result is the test accuracy and the training loss by epoch.
type result struct {
	accuracy float64
	loss     []float64
}

func run(ctx context.Context, o example.Options, c Config) (result, error) {
	x, y, xt, yt, err := example.FashionMNIST(ctx, o)
	if err != nil {
		return result{}, err
	}
	m, err := newViT(c)
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.AdamW{LearningRate: 1e-3, Options: optimizers.Options{WeightDecay: 1e-4}},
		Loss: keras.LossOf(losses.SparseCategoricalCrossentropy{FromLogits: true}), Metrics: keras.Metrics("accuracy"),
		Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 64, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	logs, err := m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	var r result
	r.accuracy, _ = logs.Get("accuracy")
	r.loss = h.Logs["loss"]
	return r, nil
}

func main() {
	o := example.ParseFlags(10, 60000, 10000)
	r, err := run(context.Background(), o, Config{PatchSize: 7, Dim: 64, Heads: 4, Blocks: 4, Classes: 10, MLPUnits: []int{128, 64}})
	example.Exit("vit", err)
	fmt.Printf("loss by epoch: %.4f\ntest accuracy: %.4f\n", r.loss, r.accuracy)
}
