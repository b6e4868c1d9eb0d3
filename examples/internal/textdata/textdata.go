// Package textdata generates the synthetic "reviews" the text examples
// train on: sequences of token ids in which a few positive and negative
// words are scattered among neutral ones, labelled 1 when the positive
// words outnumber the negative. A model has to read the whole sequence
// and count, as a sentiment model does; nothing is downloaded.
package textdata

import (
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras"
)

// The language: id 0 is padding (unused), ids 1..Positives are positive
// words, the next Negatives ids negative words, the rest neutral.
const (
	Positives = 10
	Negatives = 10
)

// Reviews returns n reviews of `steps` token ids below vocab (which must
// exceed Positives+Negatives+1) and their labels, (n, steps) and (n, 1),
// reproducibly from seed. Each review holds 0-4 positive and 0-4
// negative words, never as many of each.
func Reviews(n, steps, vocab int, seed uint64) (keras.Array, keras.Array) {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := keras.Array{Shape: []int{n, steps}, Data: make([]float32, n*steps)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range n {
		row := x.Data[i*steps : (i+1)*steps]
		for t := range row {
			row[t] = float32(1 + Positives + Negatives + rng.IntN(vocab-1-Positives-Negatives))
		}
		pos, neg := rng.IntN(5), rng.IntN(5)
		for pos == neg {
			neg = rng.IntN(5)
		}
		for k, t := range rng.Perm(steps)[:pos+neg] {
			if k < pos {
				row[t] = float32(1 + rng.IntN(Positives))
			} else {
				row[t] = float32(1 + Positives + rng.IntN(Negatives))
			}
		}
		if pos > neg {
			y.Data[i] = 1
		}
	}
	return x, y
}
