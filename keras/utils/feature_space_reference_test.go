package utils_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// featureSpaceIndex is what scripts/keras-feature-space.py writes.
type featureSpaceIndex struct {
	Keras   string                `json:"keras"`
	Data    map[string]columnJSON `json:"data"`
	HeldOut map[string]columnJSON `json:"held_out"`
	Spaces  []struct {
		Name     string `json:"name"`
		Settings struct {
			Features map[string]struct {
				Type         string  `json:"type"`
				NoOOVIndices bool    `json:"no_oov_indices"`
				NumBins      int     `json:"num_bins"`
				MaxTokens    int     `json:"max_tokens"`
				Scale        float64 `json:"scale"`
				Offset       float64 `json:"offset"`
			} `json:"features"`
			Crosses []struct {
				FeatureNames []string `json:"feature_names"`
				CrossingDim  int      `json:"crossing_dim"`
			} `json:"crosses"`
			CrossingDim int `json:"crossing_dim"`
			HashingDim  int `json:"hashing_dim"`
		} `json:"settings"`
		Output columnJSON `json:"output"`
	} `json:"spaces"`
}

type columnJSON struct {
	Shape   []int     `json:"shape"`
	Data    []float64 `json:"data"`
	Ints    []int32   `json:"ints"`
	Strings []string  `json:"strings"`
}

func (c columnJSON) array() keras.Array {
	a := keras.Array{Shape: c.Shape, Ints: c.Ints, Strings: c.Strings}
	if c.Data != nil {
		a.Data = make([]float32, len(c.Data))
		for i, v := range c.Data {
			a.Data[i] = float32(v)
		}
	}
	return a
}

// FeatureSpace adapted on the same table encodes held-out rows as
// Keras 3's FeatureSpace does (scripts/keras-feature-space.py), on every
// engine: keras.io's heart-disease settings (categories without OOV
// indices, a discretized age crossed with sex, normalized measurements),
// and the types by name with the space's defaults, an unseen category
// and code, hashing, rescaling and a capped vocabulary.
func TestFeatureSpaceMatchesKeras(t *testing.T) {
	python := kerasref.Python(t)
	dir := t.TempDir()
	kerasref.Run(t, python, kerasref.Script(t, "keras-feature-space.py"), dir)
	var idx featureSpaceIndex
	kerasref.ReadJSON(t, filepath.Join(dir, "index.json"), &idx)
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, sp := range idx.Spaces {
			t.Run(sp.Name, func(t *testing.T) {
				fs := &utils.FeatureSpace{Features: map[string]utils.Feature{}, CrossingDim: sp.Settings.CrossingDim,
					HashingDim: sp.Settings.HashingDim, Backend: be.Name()}
				data, held := keras.NamedArrays{}, keras.NamedArrays{}
				for name, f := range sp.Settings.Features {
					fs.Features[name] = utils.Feature{Type: utils.FeatureType(f.Type), NoOOVIndices: f.NoOOVIndices,
						NumBins: f.NumBins, MaxTokens: f.MaxTokens, Scale: f.Scale, Offset: f.Offset}
					data[name], held[name] = idx.Data[name].array(), idx.HeldOut[name].array()
				}
				for _, c := range sp.Settings.Crosses {
					fs.Crosses = append(fs.Crosses, utils.Cross{FeatureNames: c.FeatureNames, CrossingDim: c.CrossingDim})
				}
				if err := fs.Adapt(ctx, data); err != nil {
					t.Fatal(err)
				}
				got, err := fs.Call(ctx, held)
				if err != nil {
					t.Fatal(err)
				}
				if sp.Name == "heart" {
					checkKerasOpensFeatureModel(t, python, dir, fs, held, be.Name())
				}
				want := sp.Output.array()
				if !slices.Equal(got.Shape, want.Shape) {
					t.Fatalf("output shape %v, Keras %s gives %v", got.Shape, idx.Keras, want.Shape)
				}
				for i := range want.Data {
					if d := math.Abs(float64(got.Data[i] - want.Data[i])); d > 1e-5*math.Max(1, math.Abs(float64(want.Data[i]))) {
						t.Fatalf("output [%d, %d] = %v, Keras %s gives %v", i/want.Shape[1], i%want.Shape[1], got.Data[i], idx.Keras, want.Data[i])
					}
				}
			})
		}
	})
}

// checkKerasOpensFeatureModel saves a model made of the adapted space's
// inputs and encoded features under a Dense head, and checks that Keras
// opens it and predicts the held-out rows as kerasgo does (1e-5).
func checkKerasOpensFeatureModel(t *testing.T, python, dir string, fs *utils.FeatureSpace, held keras.NamedArrays, engine string) {
	t.Helper()
	ins, err := fs.InputList()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := fs.EncodedFeatures()
	if err != nil {
		t.Fatal(err)
	}
	m, err := keras.NewFunctional(ins, []*layers.KerasTensor{layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, enc)})
	if err == nil {
		err = m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: engine, Seed: 3})
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "features_"+engine+".keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	want, err := m.Predict(context.Background(), held, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kerasref.RunEnv(t, python, []string{"KERAS_BACKEND=tensorflow"}, kerasref.Script(t, "keras-feature-space.py"), "--open", path, dir)
	var opened struct {
		Keras, Backend string
		Predictions    columnJSON
	}
	kerasref.ReadJSON(t, filepath.Join(dir, "opened.json"), &opened)
	got := opened.Predictions.array()
	if !slices.Equal(got.Shape, want.Shape) {
		t.Fatalf("Keras %s predicts shape %v from kerasgo's file, kerasgo %v", opened.Keras, got.Shape, want.Shape)
	}
	for i := range want.Data {
		if d := math.Abs(float64(got.Data[i] - want.Data[i])); d > 1e-5 {
			t.Fatalf("Keras %s (%s) opens kerasgo's file and predicts %v at %d, kerasgo %v", opened.Keras, opened.Backend, got.Data[i], i, want.Data[i])
		}
	}
}
