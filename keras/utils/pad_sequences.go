package utils

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
)

// PadOptions configures PadSequences; the zero value is Keras's default
// (pad and truncate at the start, pad with 0, length of the longest).
type PadOptions struct {
	MaxLen     int     // length of every row; 0 means the longest sequence's
	Padding    string  // "pre" (default) or "post": where padding goes
	Truncating string  // "pre" (default) or "post": which end a long sequence loses
	Value      float32 // the padding value (0, Embedding's MaskZero id)
}

// PadSequences turns sequences of token ids of different lengths into
// one (len(seqs), MaxLen) Array, like keras.utils.pad_sequences: shorter
// rows are padded with Value, longer ones truncated. An id that float32
// cannot hold exactly (above 2^24) is an error, as are unknown options.
func PadSequences(seqs [][]int, o PadOptions) (keras.Array, error) {
	pre := func(name, v string) (bool, error) {
		switch v {
		case "", "pre":
			return true, nil
		case "post":
			return false, nil
		}
		return false, fmt.Errorf("PadSequences: %s must be \"pre\" or \"post\", got %q", name, v)
	}
	padPre, err := pre("Padding", o.Padding)
	if err != nil {
		return keras.Array{}, err
	}
	truncPre, err := pre("Truncating", o.Truncating)
	if err != nil {
		return keras.Array{}, err
	}
	if o.MaxLen < 0 {
		return keras.Array{}, fmt.Errorf("PadSequences: MaxLen must be positive (or 0 for the longest sequence), got %d", o.MaxLen)
	}
	n := o.MaxLen
	if n == 0 {
		for _, s := range seqs {
			n = max(n, len(s))
		}
	}
	if n == 0 {
		return keras.Array{}, fmt.Errorf("PadSequences: every sequence is empty: give MaxLen")
	}
	out := keras.Array{Shape: []int{len(seqs), n}, Data: make([]float32, len(seqs)*n)}
	for i, s := range seqs {
		if len(s) > n {
			if truncPre {
				s = s[len(s)-n:]
			} else {
				s = s[:n]
			}
		}
		row := out.Data[i*n : (i+1)*n]
		for j := range row {
			row[j] = o.Value
		}
		start := 0
		if padPre {
			start = n - len(s)
		}
		for j, id := range s {
			if id < -(1<<24) || id > 1<<24 {
				return keras.Array{}, fmt.Errorf("PadSequences: sequence %d holds id %d, beyond what float32 holds exactly (2^24)", i, id)
			}
			row[start+j] = float32(id)
		}
	}
	return out, nil
}
