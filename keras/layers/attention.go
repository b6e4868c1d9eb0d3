package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Attention is dot-product attention, like keras.layers.Attention:
// scores = query·keyᵀ (times a learned scalar Scale with UseScale), or
// with ScoreMode "concat" scale*Σ tanh(query + key) weighted by a learned
// scalar.
type Attention struct {
	ScoreMode string // "dot" (default) or "concat"
	denseAttention

	scale, concatWeight *Weight
}

// ClassName returns "Attention".
func (*Attention) ClassName() string { return "Attention" }

func (a *Attention) scoreMode() string {
	if a.ScoreMode == "" {
		return "dot"
	}
	return a.ScoreMode
}

// Build checks the inputs and creates the scalars Keras creates.
func (a *Attention) Build(inputs []backend.Shape) (backend.Shape, error) {
	out, err := a.build(inputs)
	if err != nil {
		return nil, err
	}
	if m := a.scoreMode(); m != "dot" && m != "concat" {
		return nil, fmt.Errorf("score_mode must be \"dot\" or \"concat\", got %q", a.ScoreMode)
	}
	if a.UseScale {
		if a.scale, err = a.AddWeight("scale", backend.Shape{}, initializers.Constant{Value: 1}); err != nil {
			return nil, err
		}
	}
	if a.scoreMode() == "concat" {
		if a.concatWeight, err = a.AddWeight("concat_score_weight", backend.Shape{}, initializers.Constant{Value: 1}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Call computes the scores and attends.
func (a *Attention) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	q, k := in[0], key(in)
	var scores backend.Value
	if a.scoreMode() == "dot" {
		scores = b.BatchMatMul(q, b.Transpose(k, 0, 2, 1))
		if a.scale != nil {
			scores = b.Mul(scores, ctx.Weight(a.scale))
		}
	} else {
		sum := pairSums(b, q, k)
		if a.scale != nil {
			sum = b.Mul(sum, ctx.Weight(a.scale))
		}
		scores = b.Mul(b.Sum(b.Tanh(sum), 3), ctx.Weight(a.concatWeight))
	}
	return a.attend(ctx, in, scores)
}

// GetConfig returns Keras's config.
func (a *Attention) GetConfig() (serialization.Config, error) {
	return serialization.Config{"use_scale": a.UseScale, "score_mode": a.scoreMode(), "dropout": a.Dropout, "seed": nil}, nil
}

func init() {
	mustRegister("Attention", func(r *serialization.Reader) (Layer, error) {
		a := &Attention{ScoreMode: r.String("score_mode", "dot")}
		a.UseScale, a.Dropout = r.Bool("use_scale", false), r.Float("dropout", 0)
		r.Ignore("seed")
		return a, nil
	})
}

func (*Attention) takesUnknownDims() {}
