package utils_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/keras"
)

// Keras's pad_sequences example, with its defaults (pre padding and
// truncation) and each option.
func ExamplePadSequences() {
	seqs := [][]int{{1}, {2, 3}, {4, 5, 6}}
	a := keras.Must(utils.PadSequences(seqs, utils.PadOptions{}))
	fmt.Println(a.Shape, a.Data)
	b := keras.Must(utils.PadSequences(seqs, utils.PadOptions{MaxLen: 2, Padding: "post", Truncating: "post", Value: -1}))
	fmt.Println(b.Shape, b.Data)
	// Output:
	// [3 3] [0 0 1 0 2 3 4 5 6]
	// [3 2] [1 -1 2 3 4 5]
}

func TestPadSequencesErrors(t *testing.T) {
	for _, c := range []struct {
		seqs [][]int
		o    utils.PadOptions
		want string
	}{
		{[][]int{{1}}, utils.PadOptions{Padding: "middle"}, `Padding must be "pre" or "post", got "middle"`},
		{[][]int{{1}}, utils.PadOptions{MaxLen: -2}, "MaxLen must be positive"},
		{[][]int{{}, {}}, utils.PadOptions{}, "every sequence is empty"},
		{[][]int{{1, 1 << 25}}, utils.PadOptions{}, "sequence 0 holds id 33554432"},
	} {
		if _, err := utils.PadSequences(c.seqs, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %+v: %v, want %q", c.seqs, c.o, err, c.want)
		}
	}
}
