package kerasref

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Corpus is a directory of files a Keras script writes (models, arrays
// and its index.json), built once per test binary by the first test that
// asks for it and removed by Remove (call it from TestMain).
type Corpus struct {
	// Script is the script's name under scripts/ (keras-loaders.py).
	Script string

	once sync.Once
	dir  string
}

// Build runs the script with Keras (skipping t without Python Keras),
// once, decodes its index.json into index and returns the directory.
func (c *Corpus) Build(t *testing.T, index any) string {
	t.Helper()
	python := Python(t)
	c.once.Do(func() {
		dir, err := os.MkdirTemp("", "keras-corpus")
		if err != nil {
			t.Fatal(err)
		}
		Run(t, python, Script(t, c.Script), dir)
		c.dir = dir
	})
	if c.dir == "" {
		t.Fatalf("the Keras corpus of %s was not built (see the first test that tried)", c.Script)
	}
	ReadJSON(t, filepath.Join(c.dir, "index.json"), index)
	return c.dir
}

// Remove deletes the corpus's directory, if it was built.
func (c *Corpus) Remove() {
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// ReadJSON decodes the JSON file at path into v, failing t when it
// cannot.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Array is an array as the Keras scripts write it: its shape and its
// values as float64, row-major.
type Array struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Float32 returns a's values as float32.
func (a Array) Float32() []float32 {
	out := make([]float32, len(a.Data))
	for i, v := range a.Data {
		out[i] = float32(v)
	}
	return out
}
