package keras_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
)

// refArray is an array as the Keras scripts write it.
type refArray struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// array converts a to kerasgo's float32 Array.
func (a refArray) array() keras.Array {
	out := keras.Array{Shape: a.Shape, Data: make([]float32, len(a.Data))}
	for i, v := range a.Data {
		out.Data[i] = float32(v)
	}
	return out
}

// kerasCorpus is a directory of models a Keras script writes, built once
// per test binary and removed by TestMain.
type kerasCorpus struct {
	script string
	once   sync.Once
	dir    string
}

var (
	catalogueCorpus  = &kerasCorpus{script: "keras-catalogue.py"}
	trainingCorpus   = &kerasCorpus{script: "keras-training.py"}
	transformsCorpus = &kerasCorpus{script: "keras-transforms.py"}
	corpora          = []*kerasCorpus{catalogueCorpus, trainingCorpus, transformsCorpus}
)

// build runs the script with Keras (skipping t without Python Keras) and
// decodes its index.json into index.
func (c *kerasCorpus) build(t *testing.T, index any) string {
	t.Helper()
	python := kerasref.Python(t)
	c.once.Do(func() {
		dir, err := os.MkdirTemp("", "keras-corpus")
		if err != nil {
			t.Fatal(err)
		}
		kerasref.Run(t, python, kerasref.Script(t, c.script), dir)
		c.dir = dir
	})
	if c.dir == "" {
		t.Fatalf("the Keras corpus of %s was not built (see the first test that tried)", c.script)
	}
	readJSON(t, filepath.Join(c.dir, "index.json"), index)
	return c.dir
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

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
		if c.dir != "" {
			os.RemoveAll(c.dir)
		}
	}
	os.Exit(code)
}
