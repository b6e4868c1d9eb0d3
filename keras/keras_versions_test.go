package keras_test

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// Models saved by every Keras 3 release from 3.1 to 3.14
// (scripts/keras-versions.py on each release's numpy backend: a
// Sequential MLP compiled with a schedule, a CNN, an Embedding-LSTM-GRU
// compiled with no optimizer, an uncompiled MultiHeadAttention block)
// load in kerasgo, compile from their saved settings, and predict what
// that release predicted within 1e-5 on every engine. 3.15's files are
// the catalogue's (TestKerasCatalogue).
func TestKerasVersionsLoad(t *testing.T) {
	python := kerasref.Python(t)
	versions := kerasref.Versions(t)
	names := make([]string, 0, len(versions))
	for v := range versions {
		names = append(names, v)
	}
	sort.Slice(names, func(i, j int) bool { return versionLess(names[i], names[j]) })
	dirs := map[string]string{}
	for _, v := range names {
		dir := filepath.Join(t.TempDir(), v)
		kerasref.RunEnv(t, python, []string{"KERAS_BACKEND=numpy", "PYTHONPATH=" + versions[v]}, kerasref.Script(t, "keras-versions.py"), dir)
		dirs[v] = dir
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		loaded, tried := 0, 0
		for _, v := range names {
			var index struct {
				Keras string   `json:"keras"`
				Cases []string `json:"cases"`
			}
			readJSON(t, filepath.Join(dirs[v], "index.json"), &index)
			if index.Keras != v {
				t.Errorf("build/keras-env/versions/%s holds Keras %s", v, index.Keras)
			}
			for _, name := range index.Cases {
				tried++
				m, err := keras.LoadModel(filepath.Join(dirs[v], name+".keras"), keras.LoadOptions{Backend: be.Name()})
				if err != nil {
					t.Errorf("Keras %s's %s does not load: %v", v, name, err)
					continue
				}
				var ref struct{ Inputs, Outputs []refArray }
				readJSON(t, filepath.Join(dirs[v], name+".json"), &ref)
				var xs keras.Arrays
				for _, in := range ref.Inputs {
					xs = append(xs, in.array())
				}
				if name == "attention" { // saved uncompiled
					if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: be.Name()}); err != nil {
						t.Fatal(err)
					}
				}
				outs, err := m.PredictOutputs(context.Background(), xs, keras.PredictOptions{})
				if err != nil {
					t.Errorf("Keras %s's %s: %v", v, name, err)
					continue
				}
				if d, where := worstDiff(outs, ref.Outputs); !(d <= 1e-5) {
					t.Errorf("Keras %s's %s: kerasgo's prediction differs by %g (%s)", v, name, d, where)
					continue
				}
				loaded++
			}
		}
		t.Logf("files of Keras %v (%d releases) on %s: %d of %d load and predict as Keras did", names, len(names), be.Name(), loaded, tried)
	})
}

// versionLess orders "3.9.2" before "3.10.0".
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < min(len(as), len(bs)); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}
