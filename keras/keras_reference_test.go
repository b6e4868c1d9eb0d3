package keras_test

import (
	"os"
	"sort"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
)

// refArray is an array as the Keras scripts write it.
type refArray kerasref.Array

// array converts a to kerasgo's float32 Array.
func (a refArray) array() keras.Array {
	return keras.Array{Shape: a.Shape, Data: kerasref.Array(a).Float32()}
}

// kerasCorpus is a directory of models a Keras script writes, built once
// per test binary and removed by TestMain.
type kerasCorpus = kerasref.Corpus

var (
	catalogueCorpus  = &kerasCorpus{Script: "keras-catalogue.py"}
	trainingCorpus   = &kerasCorpus{Script: "keras-training.py"}
	transformsCorpus = &kerasCorpus{Script: "keras-transforms.py"}
	corpora          = []*kerasCorpus{catalogueCorpus, trainingCorpus, transformsCorpus}
)

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) { t.Helper(); kerasref.ReadJSON(t, path, v) }

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestMain removes the Keras corpora the tests built, if they did.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, c := range corpora {
		c.Remove()
	}
	os.Exit(code)
}
