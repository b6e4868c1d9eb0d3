package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Orthogonal draws a random orthogonal matrix, as
// keras.initializers.Orthogonal (the default recurrent kernel of LSTM,
// GRU and SimpleRNN): the shape is viewed as (prod(shape[:-1]),
// shape[-1]); a standard normal matrix of the taller of that shape and
// its transpose is QR-decomposed, Q's columns take the signs of R's
// diagonal (so that Q is uniformly distributed), and Q (transposed if the
// matrix is wide) is scaled by Gain (zero means Keras's default, 1).
type Orthogonal struct{ Gain float64 }

// Name returns "orthogonal", or "orthogonal(gain=...)" for a gain
// other than 1.
func (o Orthogonal) Name() string {
	if o.Gain == 0 || o.Gain == 1 {
		return "orthogonal"
	}
	return spec("orthogonal", "gain", o.Gain)
}

func (o Orthogonal) check() error {
	if math.IsNaN(o.Gain) || math.IsInf(o.Gain, 0) {
		return fmt.Errorf("the gain must be finite, got %v", o.Gain)
	}
	return nil
}

func (o Orthogonal) kerasObject() (string, serialization.Config) {
	gain := o.Gain
	if gain == 0 {
		gain = 1
	}
	return "Orthogonal", serialization.Config{"gain": gain, "seed": nil}
}

// Init implements Initializer.
func (o Orthogonal) Init(s backend.Shape, rng *rand.Rand) []float32 {
	gain := o.Gain
	if gain == 0 {
		gain = 1
	}
	cols := 1
	if len(s) > 0 {
		cols = s[len(s)-1]
	}
	rows := 1
	if cols > 0 {
		rows = s.Size() / cols
	}
	if rows == 0 || cols == 0 {
		return make([]float32, s.Size())
	}
	tall, short := max(rows, cols), min(rows, cols)
	normal := make([]float64, tall*short)
	for i := range normal {
		normal[i] = rng.NormFloat64()
	}
	var qr mat.QR
	qr.Factorize(mat.NewDense(tall, short, normal))
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	out := make([]float32, rows*cols)
	for i := range tall {
		for j := range short {
			v := q.At(i, j) * gain
			if r.At(j, j) < 0 {
				v = -v
			}
			if rows >= cols {
				out[i*cols+j] = float32(v)
			} else {
				out[j*cols+i] = float32(v)
			}
		}
	}
	return out
}
