package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Embedding turns token ids into dense vectors, like
// keras.layers.Embedding: an input (batch, ...) of integer ids in [0,
// InputDim) gives (batch, ..., OutputDim), row id of the embeddings
// matrix (InputDim, OutputDim) for each id.
//
// Ids from an input made with IntInput travel as int32, exactly; ids in
// float data are exact below 2^24, and a larger one there is an error
// that says to use IntInput. Fit, Evaluate and Predict check ids fed to
// an Embedding straight from a model input before training
// (CheckInputData): an id that is not an integer in [0, InputDim) is an
// error naming the layer, the sample and the id. Inside a step, an id out
// of range fails the step; nothing is read outside the matrix.
type Embedding struct {
	InputDim              int    // vocabulary size, required
	OutputDim             int    // vector size, required
	EmbeddingsInitializer string // default "uniform" (U(-0.05, 0.05))
	// MaskZero makes id 0 padding: the output carries a mask (1 where the
	// id is not 0) that the layers after it use (LSTM skips padded steps),
	// as Keras's mask_zero. Id 0 is then reserved, so InputDim counts it.
	MaskZero bool
	// EmbeddingsRegularizer adds a penalty of the whole embeddings matrix
	// to the training loss (Keras's embeddings_regularizer); nil for none.
	EmbeddingsRegularizer regularizers.Regularizer
	// EmbeddingsConstraint projects the matrix after each update (Keras's
	// embeddings_constraint).
	EmbeddingsConstraint constraints.Constraint
	Base

	embeddings *Weight
}

// maxFloatID is the largest id float32 holds exactly (and with all
// smaller ones).
const maxFloatID = 1 << 24

// ClassName returns "Embedding".
func (*Embedding) ClassName() string { return "Embedding" }

// Build creates the embeddings matrix.
func (e *Embedding) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if e.InputDim <= 0 || e.OutputDim <= 0 {
		return nil, fmt.Errorf("input_dim and output_dim must be positive, got %d and %d", e.InputDim, e.OutputDim)
	}
	if len(in) < 1 {
		return nil, fmt.Errorf("expected an input of shape (batch, ...) of token ids, received %v", in)
	}
	init, err := initializers.Get(e.EmbeddingsInitializer, initializers.RandomUniform{})
	if err != nil {
		return nil, err
	}
	if e.embeddings, err = e.AddWeight("embeddings", backend.Shape{e.InputDim, e.OutputDim}, init); err != nil {
		return nil, err
	}
	if err := regularize(e.embeddings, "embeddings", e.EmbeddingsRegularizer, e.EmbeddingsConstraint); err != nil {
		return nil, err
	}
	return append(in.Clone(), e.OutputDim), nil
}

// takesUnknownDims: the ids' lengths come from the data (a
// TextVectorization padding each batch to its longest string).
func (*Embedding) takesUnknownDims() {}

// Call looks the ids up.
func (e *Embedding) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Gather(ctx.Weight(e.embeddings), in[0])
}

// ComputeMask marks the ids that are not 0, with MaskZero.
func (e *Embedding) ComputeMask(ctx *Context, in, _ []backend.Value) backend.Value {
	if !e.MaskZero {
		return nil
	}
	return ctx.B.Greater(ctx.B.Cast(in[0]), ctx.B.Scalar(0.5))
}

// CheckInputData checks that every id is an integer in [0, InputDim):
// the ids are ints (IntInput) or floats (data), row-major; sampleSize is
// the number of ids per sample.
func (e *Embedding) CheckInputData(data []float32, ints []int32, sampleSize int) error {
	return checkIDs(data, ints, sampleSize, e.InputDim, "token id", "input_dim", "raise InputDim or map unknown tokens to a reserved id")
}

// checkIDs checks that every id (ints, or floats in data) is an integer
// in [0, limit), naming the sample and position of the first that is
// not; what names the ids, setting the limit, and fix what to do.
func checkIDs(data []float32, ints []int32, sampleSize, limit int, what, setting, fix string) error {
	bad := func(i int, v any) error {
		return fmt.Errorf("sample %d holds %s %v at position %d: it must be an integer in [0, %d) (%s); %s",
			i/max(sampleSize, 1), what, v, i%max(sampleSize, 1), limit, setting, fix)
	}
	for i, v := range ints {
		if v < 0 || int(v) >= limit {
			return bad(i, v)
		}
	}
	for i, v := range data {
		if v < 0 || int(v) >= limit || float32(math.Trunc(float64(v))) != v {
			return bad(i, v)
		}
		if v >= maxFloatID {
			return fmt.Errorf("sample %d holds %s %v at position %d, which float32 data cannot hold exactly: make the input with layers.IntInput and give the ids as Ints",
				i/max(sampleSize, 1), what, v, i%max(sampleSize, 1))
		}
	}
	return nil
}

// InputDataChecker is implemented by layers that check the data a model
// input feeds them before a step runs (Embedding's ids): float data, or
// integer data from an int input.
type InputDataChecker interface {
	CheckInputData(data []float32, ints []int32, sampleSize int) error
}

// InputDataCheckerOf returns the checker of the data that the call which
// made t reads, if its layer checks it: ReversibleEmbedding checks the
// ids of its forward calls, not the vectors of its reverse ones.
func InputDataCheckerOf(t *KerasTensor) (InputDataChecker, bool) {
	c, ok := t.Layer().(InputDataChecker)
	if n, perCall := t.Layer().(interface{ checksInputOf(*KerasTensor) bool }); ok && perCall && !n.checksInputOf(t) {
		return nil, false
	}
	return c, ok
}

// GetConfig returns Keras's Embedding config.
func (e *Embedding) GetConfig() (serialization.Config, error) {
	init, err := initializers.Serialize(e.EmbeddingsInitializer, "uniform")
	if err != nil {
		return nil, err
	}
	cfg := serialization.Config{"input_dim": e.InputDim, "output_dim": e.OutputDim, "embeddings_initializer": init,
		"activity_regularizer": nil, "mask_zero": e.MaskZero}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"embeddings": e.EmbeddingsRegularizer},
		map[string]constraints.Constraint{"embeddings": e.EmbeddingsConstraint})
}

func init() {
	mustRegister("Embedding", func(r *serialization.Reader) (Layer, error) { return readEmbedding(r), nil })
}

// readEmbedding reads Keras's Embedding config (ReversibleEmbedding's
// too).
func readEmbedding(r *serialization.Reader) *Embedding {
	e := &Embedding{InputDim: r.Int("input_dim", 0), OutputDim: r.Int("output_dim", 0),
		EmbeddingsInitializer: readInitializer(r, "embeddings_initializer"),
		EmbeddingsRegularizer: readRegularizer(r, "embeddings_regularizer"), EmbeddingsConstraint: readConstraint(r, "embeddings_constraint")}
	for _, key := range []string{"lora_rank", "lora_alpha", "input_length"} {
		r.ExpectNull(key)
	}
	e.MaskZero = r.Bool("mask_zero", false)
	r.Expect("sparse", false, "")
	return e
}
