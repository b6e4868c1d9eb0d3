package datasets_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/datasets"
	"github.com/kerasgo/kerasgo/datasets/bostonhousing"
	"github.com/kerasgo/kerasgo/datasets/californiahousing"
	"github.com/kerasgo/kerasgo/datasets/cifar10"
	"github.com/kerasgo/kerasgo/datasets/cifar100"
	"github.com/kerasgo/kerasgo/datasets/imdb"
	"github.com/kerasgo/kerasgo/datasets/reuters"
	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
)

// kerasArray is an array as scripts/keras-datasets.py prints it.
type kerasArray struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Every loader reads the files Keras's loader reads and returns what
// Keras 3.15's load_data returns for them (the same samples, in the same
// order, split at the same place, word ids prepared the same way), with
// Keras's settings and others: scripts/keras-datasets.py writes made-up
// files in each dataset's format into a Keras cache and runs Keras's
// loaders on them. kerasgo reads the same directory (Options.Dir), and
// extracts the CIFAR archives itself (Keras's extractions are removed
// first). Skipped without `make keras-env`.
func TestLoadersMatchKeras(t *testing.T) {
	python := kerasref.Python(t)
	home := t.TempDir()
	out := kerasref.Run(t, python, kerasref.Script(t, "keras-datasets.py"), home)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &want); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dir := filepath.Join(home, "datasets")
	for _, d := range []string{"cifar-10-batches-py-target", "cifar-100-python-target"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	o := datasets.Options{Dir: dir}
	arrays := func(name string, train, test datasets.Split, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var w [4]kerasArray
		if err := json.Unmarshal(want[name], &w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, got := range []keras.Array{train.X, train.Y, test.X, test.Y} {
			if !slices.Equal(got.Shape, w[i].Shape) && !(len(w[i].Shape) == 1 && len(got.Shape) == 1 && got.Shape[0] == w[i].Shape[0]) {
				t.Errorf("%s array %d: shape %v, Keras's %v", name, i, got.Shape, w[i].Shape)
				continue
			}
			for k, v := range got.Data {
				if d := float64(v) - w[i].Data[k]; d > 1e-6*max(1, w[i].Data[k]) || -d > 1e-6*max(1, -w[i].Data[k]) {
					t.Errorf("%s array %d value %d: %v, Keras's %v", name, i, k, v, w[i].Data[k])
					break
				}
			}
		}
	}
	train, test, err := bostonhousing.LoadData(ctx, bostonhousing.Options{Options: o})
	arrays("boston", train, test, err)
	train, test, err = bostonhousing.LoadData(ctx, bostonhousing.Options{Options: o, TestSplit: 0.3, Seed: 7})
	arrays("boston_split", train, test, err)
	train, test, err = californiahousing.LoadData(ctx, californiahousing.Options{Options: o})
	arrays("california", train, test, err)
	train, test, err = californiahousing.LoadData(ctx, californiahousing.Options{Options: o, Version: "small", TestSplit: 0.1})
	arrays("california_small", train, test, err)
	train, test, err = cifar10.LoadData(ctx, o)
	arrays("cifar10", train, test, err)
	train, test, err = cifar100.LoadData(ctx, "", o)
	arrays("cifar100", train, test, err)
	train, test, err = cifar100.LoadData(ctx, "coarse", o)
	arrays("cifar100_coarse", train, test, err)

	sequences := func(name string, train, test datasets.Sequences, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var w []json.RawMessage
		if err := json.Unmarshal(want[name], &w); err != nil || len(w) != 4 {
			t.Fatalf("%s: %v", name, err)
		}
		for i, part := range []datasets.Sequences{train, test} {
			var seqs [][]int
			var labels kerasArray
			if json.Unmarshal(w[2*i], &seqs) != nil || json.Unmarshal(w[2*i+1], &labels) != nil {
				t.Fatalf("%s: Keras's part %d", name, i)
			}
			got, _ := json.Marshal(part.Sequences)
			exp, _ := json.Marshal(seqs)
			if string(got) != string(exp) {
				t.Errorf("%s part %d sequences:\nkerasgo %s\nKeras   %s", name, i, got, exp)
			}
			for k, l := range part.Labels {
				if float64(l) != labels.Data[k] {
					t.Errorf("%s part %d label %d: %d, Keras's %v", name, i, k, l, labels.Data[k])
					break
				}
			}
		}
	}
	s1, s2, err := imdb.LoadData(ctx, imdb.Options{Options: o})
	sequences("imdb", s1, s2, err)
	s1, s2, err = imdb.LoadData(ctx, imdb.Options{Options: o, SequenceOptions: datasets.SequenceOptions{NumWords: 20, SkipTop: 2, MaxLen: 9, Seed: 5}})
	sequences("imdb_words", s1, s2, err)
	s1, s2, err = imdb.LoadData(ctx, imdb.Options{Options: o, SequenceOptions: datasets.SequenceOptions{NumWords: 25, NoOOVChar: true, NoStartChar: true, NoIndexFrom: true}})
	sequences("imdb_no_oov", s1, s2, err)
	s1, s2, err = reuters.LoadData(ctx, reuters.Options{Options: o})
	sequences("reuters", s1, s2, err)
	s1, s2, err = reuters.LoadData(ctx, reuters.Options{Options: o, TestSplit: 0.4, SequenceOptions: datasets.SequenceOptions{NumWords: 30, MaxLen: 8}})
	sequences("reuters_split", s1, s2, err)

	idx, err := imdb.GetWordIndex(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var wantIdx map[string]int
	json.Unmarshal(want["imdb_word_index"], &wantIdx)
	if len(idx) != len(wantIdx) || idx["film"] != wantIdx["film"] {
		t.Errorf("word index %v, Keras's %v", idx, wantIdx)
	}
	var names []string
	json.Unmarshal(want["reuters_labels"], &names)
	if !slices.Equal(reuters.LabelNames(), names) {
		t.Errorf("label names %v, Keras's %v", reuters.LabelNames(), names)
	}
	if _, err := os.Stat(filepath.Join(dir, "cifar-10-batches-py-target", "cifar-10-batches-py", "test_batch")); err != nil {
		t.Errorf("kerasgo's extraction is not where Keras puts it: %v", err)
	}
}
