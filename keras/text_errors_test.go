package keras_test

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/internal/testcheck"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Strings where numbers belong, numbers where strings belong, a host
// layer where the engine computes, and lookups that cannot answer: each
// is an error that names the problem and the fix, never a panic.
func TestStringLayerErrors(t *testing.T) {
	ctx := context.Background()
	want := testcheck.WantErr
	t.Run("string array shape", func(t *testing.T) {
		_, err := keras.NewStringArray([]string{"a", "b", "c"}, 2, 2)
		want(t, err, "shape [2 2]", "3 values")
	})
	t.Run("strings into an engine layer", func(t *testing.T) {
		out := layers.Apply(&layers.Dense{Units: 2}, layers.StringInput(3))
		want(t, out.Err(), "cannot take strings", "TextVectorization, StringLookup or Hashing")
	})
	t.Run("host layer after an engine layer", func(t *testing.T) {
		h := layers.Apply(&layers.Dense{Units: 2}, layers.Input(3))
		out := layers.Apply(&layers.IntegerLookup{Vocabulary: []int64{1, 2}}, h)
		want(t, out.Err(), "computes on the host", "apply it to the input")
	})
	t.Run("numbers into a string lookup", func(t *testing.T) {
		out := layers.Apply(&layers.StringLookup{Vocabulary: []string{"a"}}, layers.Input(3))
		want(t, out.Err(), "takes strings, not float32", "StringInput")
	})
	t.Run("numbers for a string input", func(t *testing.T) {
		in := layers.StringInput(1)
		m, err := keras.NewModel(in, layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.StringLookup{Vocabulary: []string{"a"}, OutputMode: "multi_hot"}, in)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Predict(ctx, keras.Array{Shape: []int{2, 1}, Data: []float32{1, 2}}, keras.PredictOptions{})
		want(t, err, "string input", "keras.NewStringArray")
		s, _ := keras.NewStringArray([]string{"a", "b"}, 2, 1)
		if _, err := m.Predict(ctx, s, keras.PredictOptions{}); err != nil {
			t.Fatalf("strings for the string input: %v", err)
		}
	})
	t.Run("strings for a number input", func(t *testing.T) {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := keras.NewStringArray([]string{"a", "b", "c", "d"}, 2, 2)
		_, err = m.Predict(ctx, s, keras.PredictOptions{})
		want(t, err, "holds strings", "StringLookup or TextVectorization")
	})
	t.Run("encoded output without a vocabulary", func(t *testing.T) {
		out := layers.Apply(&layers.TextVectorization{OutputMode: "multi_hot"}, layers.StringInput())
		want(t, out.Err(), "vocabulary's size", "keras.Adapt")
	})
	t.Run("unknown value without OOV indices", func(t *testing.T) {
		l := &layers.StringLookup{Vocabulary: []string{"a", "b"}, NoOOVIndices: true}
		if out := layers.Apply(l, layers.StringInput(2)); out.Err() != nil {
			t.Fatal(out.Err())
		}
		_, err := l.CallHost([]keras.Array{{Shape: []int{1, 2}, Strings: []string{"a", "zebra"}}})
		want(t, err, `"zebra" is not in the vocabulary`, "NumOOVIndices")
	})
	t.Run("crossing settings and inputs", func(t *testing.T) {
		color, size := layers.StringInput(1), layers.IntInput(1)
		cross := func(l *layers.HashedCrossing, ins ...*layers.KerasTensor) error { return layers.Apply(l, ins...).Err() }
		want(t, cross(&layers.HashedCrossing{NumBins: 4}, color), "HashedCrossing", "at least two inputs", "received 1")
		want(t, cross(&layers.HashedCrossing{}, color, size), "HashedCrossing", "NumBins is 0", "positive")
		want(t, cross(&layers.HashedCrossing{NumBins: 4, OutputMode: "multi_hot"}, color, size), "HashedCrossing", `"multi_hot"`, "int or one_hot")
		want(t, cross(&layers.HashedCrossing{NumBins: 4}, color, layers.IntInput(2)), "HashedCrossing", "input 1 has shape", "equal shapes")
		want(t, cross(&layers.HashedCrossing{NumBins: 4}, layers.StringInput(3), layers.StringInput(3)), "HashedCrossing", "(batch,) or (batch, 1)")
		want(t, cross(&layers.HashedCrossing{NumBins: 4}, color, layers.Input(1)), "HashedCrossing", "input 1 is float32", "strings or integers")
		want(t, cross(&layers.HashedCrossing{NumBins: 4}, color, layers.Apply(&layers.Dense{Units: 1}, layers.Input(1))), "computes on the host")
	})
	t.Run("adapting a given vocabulary", func(t *testing.T) {
		s, _ := keras.NewStringArray([]string{"x y"})
		err := keras.Adapt(ctx, &layers.TextVectorization{Vocabulary: []string{"x"}}, s)
		want(t, err, "was given a Vocabulary", "cannot be adapted")
	})
	t.Run("adapting on no terms", func(t *testing.T) {
		s, _ := keras.NewStringArray([]string{"", "  ", "!!"})
		err := keras.Adapt(ctx, &layers.TextVectorization{}, s)
		want(t, err, "no terms")
	})
	t.Run("repeated vocabulary", func(t *testing.T) {
		out := layers.Apply(&layers.StringLookup{Vocabulary: []string{"a", "b", "a"}}, layers.StringInput(1))
		want(t, out.Err(), `repeats the terms "a"`)
	})
	// A term that is not UTF-8 would change when config.json or
	// vocabulary.txt is written (to U+FFFD), so predictions would change
	// after Save and Load; in memory the default standardization turned
	// the input's same bytes into U+FFFD, so the term never matched
	// (issue 39). Vocabularies hold text: such terms are refused.
	t.Run("vocabulary term not UTF-8", func(t *testing.T) {
		out := layers.Apply(&layers.TextVectorization{Vocabulary: []string{"ok", "caf\xe9"}}, layers.StringInput())
		want(t, out.Err(), `"caf\xe9", is not valid UTF-8`, "decode the data to UTF-8")
		out = layers.Apply(&layers.StringLookup{Vocabulary: []string{"\xff"}}, layers.StringInput(1))
		want(t, out.Err(), "is not valid UTF-8")
		s, _ := keras.NewStringArray([]string{"caf\xe9 ok", "ok"})
		err := keras.Adapt(ctx, &layers.TextVectorization{Standardize: "lower"}, s)
		want(t, err, `"caf\xe9", is not valid UTF-8`)
	})
	t.Run("host layer in a nested model", func(t *testing.T) {
		in := layers.IntInput(2)
		inner, err := keras.NewModel(in, layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.IntegerLookup{Vocabulary: []int64{5, 6}, OutputMode: "multi_hot"}, in)))
		if err != nil {
			t.Fatal(err)
		}
		out := layers.Apply(inner, layers.IntInput(2))
		want(t, out.Err(), "compute on the host", "outer model")
	})
	t.Run("text file vocabulary in a config", func(t *testing.T) {
		_, err := layers.FromConfig("StringLookup", map[string]any{"name": "s", "vocabulary": "/etc/passwd"})
		want(t, err, "vocabulary", "give the terms")
	})
}
