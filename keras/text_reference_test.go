package keras_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// hostArray is an array of scripts/keras-text.py: strings, integers or
// floats.
type hostArray struct {
	Shape   []int     `json:"shape"`
	Strings []string  `json:"strings"`
	Ints    []int64   `json:"ints"`
	Floats  []float64 `json:"floats"`
}

// array is a as kerasgo's Array.
func (a hostArray) array() keras.Array {
	out := keras.Array{Shape: a.Shape}
	switch {
	case a.Strings != nil:
		out.Strings = a.Strings
	case a.Ints != nil:
		out.Ints = make([]int32, len(a.Ints))
		for i, v := range a.Ints {
			out.Ints[i] = int32(v)
		}
	default:
		out.Data = make([]float32, len(a.Floats))
		for i, v := range a.Floats {
			out.Data[i] = float32(v)
		}
	}
	return out
}

// input is a model input for a's samples.
func (a hostArray) input() *layers.KerasTensor {
	switch {
	case a.Strings != nil:
		return layers.StringInput(a.Shape[1:]...)
	case a.Ints != nil:
		return layers.IntInput(a.Shape[1:]...)
	}
	return layers.Input(a.Shape[1:]...)
}

type textCase struct {
	Name       string               `json:"name"`
	Class      string               `json:"class"`
	Config     serialization.Config `json:"config"`
	Adapt      *hostArray           `json:"adapt"`
	Vocabulary []any                `json:"vocabulary"`
	Input      hostArray            `json:"input"`
	// Inputs are a HashedCrossing's features (Input is the first).
	Inputs []hostArray `json:"inputs"`
	Output hostArray   `json:"output"`
}

// textModelCase is a model on one string input that Keras saved, with
// its predictions.
type textModelCase struct {
	File        string    `json:"file"`
	Texts       []string  `json:"texts"`
	Predictions hostArray `json:"predictions"`
}

type textIndex struct {
	Keras      string        `json:"keras"`
	Cases      []textCase    `json:"cases"`
	Model      textModelCase `json:"model"`
	TFIDFModel textModelCase `json:"tfidf_model"`
	// CustomModel's TextVectorization standardizes with a registered
	// function (customStandardization).
	CustomModel textModelCase `json:"custom_model"`
	Folder      struct {
		Root     string `json:"root"`
		Datasets []struct {
			Options struct {
				BatchSize  int             `json:"batch_size"`
				LabelMode  string          `json:"label_mode"`
				MaxLength  int             `json:"max_length"`
				ClassNames []string        `json:"class_names"`
				Labels     json.RawMessage `json:"labels"` // "null": Keras's labels=None
			} `json:"options"`
			ClassNames []string `json:"class_names"`
			Batches    []struct {
				X hostArray  `json:"x"`
				Y *hostArray `json:"y"`
			} `json:"batches"`
		} `json:"datasets"`
		Orders []struct {
			Seed            uint32   `json:"seed"`
			ValidationSplit float64  `json:"validation_split"`
			Subset          string   `json:"subset"`
			FilePaths       []string `json:"file_paths"`
			Labels          []int    `json:"labels"`
		} `json:"orders"`
	} `json:"folder"`
	LookupModel struct {
		File        string    `json:"file"`
		Colors      hostArray `json:"colors"`
		Words       hostArray `json:"words"`
		Predictions hostArray `json:"predictions"`
	} `json:"lookup_model"`
	// CrossModel crosses a string and an integer input with a
	// HashedCrossing.
	CrossModel struct {
		File        string               `json:"file"`
		Inputs      map[string]hostArray `json:"inputs"`
		Predictions hostArray            `json:"predictions"`
	} `json:"cross_model"`
}

var textCorpus = &kerasCorpus{Script: "keras-text.py"}

func init() { corpora = append(corpora, textCorpus) }

// vocabularyOf returns a lookup layer's vocabulary as text, to compare
// with Keras's.
func vocabularyOf(l layers.Layer) string {
	switch v := l.(type) {
	case *layers.StringLookup:
		return fmt.Sprintf("%q", v.GetVocabulary())
	case *layers.IntegerLookup:
		return fmt.Sprint(v.GetVocabulary())
	case *layers.TextVectorization:
		return fmt.Sprintf("%q", v.GetVocabulary())
	}
	return ""
}

// kerasVocabulary is Keras's get_vocabulary() as vocabularyOf writes it.
func kerasVocabulary(class string, v []any) string {
	if class == "IntegerLookup" {
		ints := make([]int64, len(v))
		for i, x := range v {
			ints[i] = int64(x.(float64))
		}
		return fmt.Sprint(ints)
	}
	strs := make([]string, len(v))
	for i, x := range v {
		strs[i] = x.(string)
	}
	return fmt.Sprintf("%q", strs)
}

// TextVectorization, StringLookup, IntegerLookup and Hashing compute what
// Keras computes: loaded from Keras's config, adapted on the data Keras
// adapted on, they learn Keras's vocabulary (order and ties included)
// and give Keras's output on strings with punctuation, capitals, Unicode,
// every ASCII whitespace and unknown terms, for every output mode,
// n-grams, OOV hashing (FarmHash64 and SipHash) and masks; tf_idf within
// 1e-6. HashedCrossing crosses strings and integers (int32's extremes
// among them) into Keras's bins.
func TestTextLayersMatchKeras(t *testing.T) {
	var index textIndex
	textCorpus.Build(t, &index)
	ctx := context.Background()
	for _, c := range index.Cases {
		t.Run(c.Name, func(t *testing.T) {
			l, err := layers.FromConfig(c.Class, c.Config)
			if err != nil {
				t.Fatal(err)
			}
			if c.Adapt != nil {
				if err := keras.Adapt(ctx, l.(layers.Adapter), c.Adapt.array()); err != nil {
					t.Fatal(err)
				}
			}
			features := c.Inputs
			if features == nil {
				features = []hostArray{c.Input}
			}
			var arrays []keras.Array
			var inputs []*layers.KerasTensor
			for _, f := range features {
				arrays = append(arrays, f.array())
				// A model input has a shape past the batch: features of
				// shape (batch,) are crossed without one.
				if len(f.Shape) > 1 {
					inputs = append(inputs, f.input())
				}
			}
			if len(inputs) == len(features) {
				if out := layers.Apply(l, inputs...); out.Err() != nil {
					t.Fatal(out.Err())
				}
			}
			if c.Vocabulary != nil {
				if got, want := vocabularyOf(l), kerasVocabulary(c.Class, c.Vocabulary); got != want {
					t.Fatalf("vocabulary\n%s\nKeras's\n%s", got, want)
				}
			}
			got, err := l.(layers.HostLayer).CallHost(arrays)
			if err != nil {
				t.Fatal(err)
			}
			checkHostOutput(t, got, c.Output)
		})
	}
	if len(index.Cases) < 55 {
		t.Fatalf("only %d cases", len(index.Cases))
	}
}

// checkHostOutput compares a host layer's output with Keras's.
func checkHostOutput(t *testing.T, got keras.Array, want hostArray) {
	t.Helper()
	if !slices.Equal(got.Shape, want.Shape) {
		t.Fatalf("output shape %v, Keras %v", got.Shape, want.Shape)
	}
	switch {
	case want.Strings != nil:
		if !slices.Equal(got.Strings, want.Strings) {
			t.Fatalf("output %q, Keras %q", got.Strings, want.Strings)
		}
	case want.Ints != nil && got.Ints != nil:
		if !slices.Equal(got.Ints, want.array().Ints) {
			t.Fatalf("output %v, Keras %v", got.Ints, want.Ints)
		}
	case want.Ints != nil: // Keras's encoded lookups are int64 counts
		want.Floats = make([]float64, len(want.Ints))
		for i, v := range want.Ints {
			want.Floats[i] = float64(v)
		}
		fallthrough
	default:
		if len(got.Data) != len(want.Floats) {
			t.Fatalf("output %v, Keras %v", got.Data, want.Floats)
		}
		for i, w := range want.Floats {
			if math.Abs(float64(got.Data[i])-w) > 1e-6 {
				t.Fatalf("output value %d is %v, Keras %v\n%v\n%v", i, got.Data[i], w, got.Data, want.Floats)
			}
		}
	}
}

// Models on raw strings that Keras saved (an adapted TextVectorization
// feeding an Embedding; an adapted tf_idf TextVectorization, its weights
// in the weights file; an adapted multi-hot StringLookup and a Hashing on
// two named string inputs) load in kerasgo, vocabularies from the file's
// assets/, and predict Keras's outputs from the same strings on every
// engine. Keras reopens kerasgo's resaved text models and predicts the
// same.
func TestKerasTextModelsLoadAndPredict(t *testing.T) {
	var index textIndex
	dir := textCorpus.Build(t, &index)
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range []textModelCase{index.Model, index.TFIDFModel, index.CustomModel} {
			checkTextModel(t, be, dir, c)
		}
		lm, err := keras.LoadModel(filepath.Join(dir, index.LookupModel.File), keras.LoadOptions{Backend: be.Name(), NoCompile: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := lm.Predict(ctx, keras.NamedArrays{"colors": index.LookupModel.Colors.array(), "words": index.LookupModel.Words.array()}, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, got.Data, index.LookupModel.Predictions.Floats, 1e-5)
		checkCrossModel(t, be, dir, index)
	})
	if index.TFIDFModel.File == "" || index.CustomModel.File == "" {
		t.Fatal("the corpus has no tf_idf model or no model with its own standardize function")
	}
}

func init() {
	if err := layers.RegisterTextStandardizer("custom_standardization", customStandardization); err != nil {
		panic(err)
	}
}

// customStandardization is scripts/keras-text.py's
// custom_standardization in Go: TensorFlow's tf.strings.lower (ASCII
// letters only), then "<br />" replaced by a space.
func customStandardization(text string) string {
	b := []byte(text)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return strings.ReplaceAll(string(b), "<br />", " ")
}

// checkTextModel loads a Keras-saved model on one string input, checks
// its predictions against Keras's, saves it again, and checks that Keras
// predicts the same from kerasgo's file.
func checkTextModel(t *testing.T, be backend.Backend, dir string, c textModelCase) {
	t.Helper()
	ctx := context.Background()
	m, err := keras.LoadModel(filepath.Join(dir, c.File), keras.LoadOptions{Backend: be.Name(), NoCompile: true})
	if err != nil {
		t.Fatal(err)
	}
	x, err := keras.NewStringArray(c.Texts, len(c.Texts), 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Predict(ctx, x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, got.Data, c.Predictions.Floats, 1e-5)
	checkKerasPredictsResaved(t, m, dir, c.Texts, got.Data)
}

// checkCrossModel loads Keras's model with a HashedCrossing on a string
// and an int64 input, checks its predictions against Keras's, saves it
// again and checks that Keras predicts the same from kerasgo's file.
func checkCrossModel(t *testing.T, be backend.Backend, dir string, index textIndex) {
	t.Helper()
	c := index.CrossModel
	m, err := keras.LoadModel(filepath.Join(dir, c.File), keras.LoadOptions{Backend: be.Name(), NoCompile: true})
	if err != nil {
		t.Fatal(err)
	}
	x := keras.NamedArrays{}
	for name, a := range c.Inputs {
		x[name] = a.array()
	}
	got, err := m.Predict(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, got.Data, c.Predictions.Floats, 1e-5)
	checkKerasPredictsResaved(t, m, dir, c.Inputs, got.Data)
}

// checkKerasPredictsResaved saves m, has Keras (keras-text.py, run in
// dir) open kerasgo's file and predict on inputs (written as JSON: a
// list of texts, or named input arrays), and checks that Keras predicts
// what kerasgo did.
func checkKerasPredictsResaved(t *testing.T, m *keras.Model, dir string, inputs any, got []float32) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "resaved.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	inputsPath := filepath.Join(t.TempDir(), "inputs.json")
	js, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inputsPath, js, 0o644); err != nil {
		t.Fatal(err)
	}
	var back []float64
	out := kerasref.Run(t, kerasref.Python(t), kerasref.Script(t, "keras-text.py"), dir, path, inputsPath)
	if err := json.Unmarshal(lastLine(out), &back); err != nil {
		t.Fatalf("Keras's predictions %q: %v", out, err)
	}
	closeTo(t, got, back, 1e-5)
}

// closeTo fails t unless got equals want within tol.
func closeTo(t *testing.T, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i, w := range want {
		if math.Abs(float64(got[i])-w) > tol {
			t.Fatalf("value %d is %v, Keras %v", i, got[i], w)
		}
	}
}

// lastLine is the last non-empty line of out.
func lastLine(out []byte) []byte {
	lines := slices.DeleteFunc(splitLines(out), func(l []byte) bool { return len(l) == 0 })
	if len(lines) == 0 {
		return nil
	}
	return lines[len(lines)-1]
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := slices.Index(b, '\n')
		if i < 0 {
			return append(out, b)
		}
		out, b = append(out, b[:i]), b[i+1:]
	}
	return out
}

// TextDatasetFromDirectory reads a folder as Keras's
// text_dataset_from_directory does: the same texts (cut to MaxLength
// bytes) and labels in every label mode, batch by batch, and with a seed
// Keras's file order and validation split.
func TestTextDatasetFromDirectoryMatchesKeras(t *testing.T) {
	var index textIndex
	dir := textCorpus.Build(t, &index)
	root := filepath.Join(dir, index.Folder.Root)
	ctx := context.Background()
	for k, ref := range index.Folder.Datasets {
		o := ref.Options
		opts := utils.TextDatasetOptions{BatchSize: o.BatchSize, LabelMode: o.LabelMode, MaxLength: o.MaxLength,
			ClassNames: o.ClassNames, NoShuffle: true, Verbose: keras.Silent}
		opts.NoLabels = string(o.Labels) == "null"
		ds, err := utils.TextDatasetFromDirectory(root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !opts.NoLabels && !slices.Equal(ds.ClassNames, ref.ClassNames) {
			t.Fatalf("setting %d: classes %v, Keras %v", k, ds.ClassNames, ref.ClassNames)
		}
		if ds.Len() != len(ref.Batches) {
			t.Fatalf("setting %d: %d batches, Keras %d", k, ds.Len(), len(ref.Batches))
		}
		for i, want := range ref.Batches {
			b, err := ds.Batch(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			x := b.X.(keras.Array)
			if !slices.Equal(x.Shape, want.X.Shape) || !slices.Equal(x.Strings, want.X.Strings) {
				t.Fatalf("setting %d, batch %d: texts %v %q, Keras %v %q", k, i, x.Shape, x.Strings, want.X.Shape, want.X.Strings)
			}
			if want.Y == nil {
				if b.Y != nil {
					t.Fatalf("setting %d: labels without labels", k)
				}
				continue
			}
			y := b.Y.(keras.Array)
			wy := want.Y.array()
			if wy.Data == nil { // Keras's int labels
				wy = keras.Array{Shape: wy.Shape, Data: make([]float32, len(wy.Ints))}
				for j, v := range want.Y.Ints {
					wy.Data[j] = float32(v)
				}
			}
			if !slices.Equal(y.Shape, wy.Shape) || !slices.Equal(y.Data, wy.Data) {
				t.Fatalf("setting %d, batch %d: labels %v %v, Keras %v %v", k, i, y.Shape, y.Data, wy.Shape, wy.Data)
			}
		}
	}
	for _, ref := range index.Folder.Orders {
		opts := utils.TextDatasetOptions{Seed: ref.Seed, ValidationSplit: ref.ValidationSplit, Subset: ref.Subset, Verbose: keras.Silent}
		ds, err := utils.TextDatasetFromDirectory(root, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(ds.FilePaths))
		for i, p := range ds.FilePaths {
			got[i], _ = filepath.Rel(root, p)
		}
		if !slices.Equal(got, ref.FilePaths) {
			t.Fatalf("seed %d, split %v %q: files %v, Keras %v", ref.Seed, ref.ValidationSplit, ref.Subset, got, ref.FilePaths)
		}
	}
	if len(index.Folder.Orders) < 9 {
		t.Fatalf("only %d orders", len(index.Folder.Orders))
	}
}
