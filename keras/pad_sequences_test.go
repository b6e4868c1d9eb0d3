package keras_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
)

// Keras's pad_sequences example, with its defaults (pre padding and
// truncation) and each option.
func ExamplePadSequences() {
	seqs := [][]int{{1}, {2, 3}, {4, 5, 6}}
	a := keras.Must(keras.PadSequences(seqs, keras.PadOptions{}))
	fmt.Println(a.Shape, a.Data)
	b := keras.Must(keras.PadSequences(seqs, keras.PadOptions{MaxLen: 2, Padding: "post", Truncating: "post", Value: -1}))
	fmt.Println(b.Shape, b.Data)
	// Output:
	// [3 3] [0 0 1 0 2 3 4 5 6]
	// [3 2] [1 -1 2 3 4 5]
}

func TestPadSequencesErrors(t *testing.T) {
	for _, c := range []struct {
		seqs [][]int
		o    keras.PadOptions
		want string
	}{
		{[][]int{{1}}, keras.PadOptions{Padding: "middle"}, `Padding must be "pre" or "post", got "middle"`},
		{[][]int{{1}}, keras.PadOptions{MaxLen: -2}, "MaxLen must be positive"},
		{[][]int{{}, {}}, keras.PadOptions{}, "every sequence is empty"},
		{[][]int{{1, 1 << 25}}, keras.PadOptions{}, "sequence 0 holds id 33554432"},
	} {
		if _, err := keras.PadSequences(c.seqs, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %+v: %v, want %q", c.seqs, c.o, err, c.want)
		}
	}
}
