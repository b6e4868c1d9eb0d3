package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// catalogueCase is one model of scripts/keras-catalogue.py.
type catalogueCase struct {
	Name    string   `json:"name"`
	Classes []string `json:"classes"`
}

// kerasCatalogue builds the catalogue with Keras once per test binary.
func kerasCatalogue(t *testing.T) (string, []catalogueCase, string) {
	t.Helper()
	var index struct {
		Keras string          `json:"keras"`
		Cases []catalogueCase `json:"cases"`
	}
	dir := catalogueCorpus.Build(t, &index)
	return dir, index.Cases, index.Keras
}

// catalogueFloor is how many catalogue models load and match today: fewer
// is a regression (refusals are allowed for settings kerasgo lacks, not
// for ones it had).
const catalogueFloor = 257

// knownDifferences are catalogue models kerasgo loads but computes
// differently from Keras, each with the reason (issue 18 fixes them or
// documents them in docs/saving.md).
var knownDifferences = map[string]string{
	"dense_sparsemax": "Keras 3.15.1's sparsemax sums the cumulative sums when more than one value is in the support (keras-team/keras#23425, fixed by #23469 after 3.15.1); kerasgo computes sparsemax as Martins and Astudillo define it, which golden-ops.py checks",
}

// Every model of the Keras catalogue (one per layer setting, built and
// saved by Keras 3 itself) either loads in kerasgo and predicts Keras's
// outputs within 1e-5 on every engine, or is refused with an error that
// names the layer. The counts are logged.
func TestKerasCatalogue(t *testing.T) {
	dir, cases, version := kerasCatalogue(t)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		matched, known, refused := 0, 0, map[string]string{}
		var differ []string
		for _, c := range cases {
			ok := t.Run(c.Name, func(t *testing.T) {
				m, err := keras.LoadModel(filepath.Join(dir, c.Name+".keras"), keras.LoadOptions{Backend: be.Name()})
				if err != nil {
					if !strings.Contains(err.Error(), "layer ") {
						t.Fatalf("refused without naming the layer: %v", err)
					}
					refused[c.Name] = err.Error()
					return
				}
				if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: be.Name()}); err != nil {
					t.Fatal(err)
				}
				var ref struct {
					Inputs, Outputs []refArray
					// Float32Outputs: a model with reduced-precision dtype
					// policies, computed by Keras with every policy float32.
					Float32Outputs []refArray `json:"float32_outputs"`
				}
				readJSON(t, filepath.Join(dir, c.Name+".json"), &ref)
				tol := 1e-5
				if ref.Float32Outputs != nil {
					halfPrecision := ref.Outputs
					if computesHalfPrecision(m, be) {
						// Keras on JAX keeps some values in float32 that
						// kerasgo rounds (XLA's excess precision, see
						// scripts/keras-mixed-precision.py).
						tol = halfPrecisionTol
					} else {
						if len(m.Notes()) == 0 {
							t.Fatal("a model with reduced-precision dtype policies loaded without a note saying it is computed in float32")
						}
						ref.Outputs = ref.Float32Outputs
					}
					defer func() {
						t.Logf("notes: %v; compared with Keras's %s outputs; Keras's own half-precision outputs differ from its float32 ones by %.3g (relative)",
							m.Notes(), map[bool]string{true: "half-precision", false: "float32"}[tol > 1e-5], worstRelative(ref.Float32Outputs, halfPrecision))
					}()
				}
				var xs keras.Arrays
				for _, in := range ref.Inputs {
					xs = append(xs, in.array())
				}
				outs, err := m.PredictOutputs(context.Background(), xs, keras.PredictOptions{})
				if err != nil {
					t.Fatalf("loaded, but Predict failed: %v", err)
				}
				worst := 0.0
				for k, want := range ref.Outputs {
					if len(outs[k].Data) != len(want.Data) {
						t.Fatalf("output %d has %d values, Keras's %d (shape %v)", k, len(outs[k].Data), len(want.Data), want.Shape)
					}
					for i, w := range want.Data {
						worst = math.Max(worst, math.Abs(float64(outs[k].Data[i])-w)/math.Max(1, math.Abs(w)))
					}
				}
				if worst > tol {
					if why, ok := knownDifferences[c.Name]; ok {
						known++
						t.Skipf("known difference (%s): %g", why, worst)
					}
					t.Fatalf("kerasgo's outputs differ from Keras's by %g (relative)", worst)
				}
				matched++
			})
			if !ok {
				differ = append(differ, c.Name)
			}
		}
		names := sortedKeys(refused)
		t.Logf("Keras %s catalogue on %s: %d of %d models load and match Keras within 1e-5; %d differ where Keras is known to be wrong; %d refused with an error naming the layer %v; %d fail %v",
			version, be.Name(), matched, len(cases), known, len(refused), names, len(differ), differ)
		for _, n := range names {
			t.Logf("refused %s: %s", n, refused[n])
		}
		if matched < catalogueFloor {
			t.Errorf("only %d catalogue models match Keras, %d did before: a setting kerasgo handled is refused or wrong now", matched, catalogueFloor)
		}
		if matched+known+len(refused)+len(differ) != len(cases) {
			t.Errorf("accounted for %d cases of %d", matched+known+len(refused)+len(differ), len(cases))
		}
	})
}

// computesHalfPrecision reports whether be computes one of m's layers in
// the half-precision dtype of its policy (backend.Capabilities.Autocast).
func computesHalfPrecision(m *keras.Model, be backend.Backend) bool {
	for _, l := range m.Layers() {
		if p := l.Common().DTypePolicy(); p != "" && slices.Contains(be.Capabilities().Autocast, layers.ComputeDType(p)) {
			return true
		}
	}
	return false
}

// notInKerasModels are the layer classes Keras cannot put in a model,
// with the reason; their values are checked by the layer golden cases
// (keras/layers/testdata/golden.json).
var notInKerasModels = map[string]string{
	"Equalization": "Keras 3.15's Equalization.compute_output_spec returns its input tensor, which Keras's graph then takes for a cycle (ValueError: ... is part of a cycle)",
}

// The catalogue covers every layer class kerasgo registers (but
// notInKerasModels); the string
// layers, whose models take strings, are covered by the text corpus
// (scripts/keras-text.py) instead.
func TestKerasCatalogueCoversEveryLayer(t *testing.T) {
	_, cases, _ := kerasCatalogue(t)
	seen := map[string]bool{}
	for _, c := range cases {
		for _, cl := range c.Classes {
			if saved, ok := savedAs[cl]; ok { // the index gives the Python class
				cl = saved
			}
			seen[cl] = true
		}
	}
	var text textIndex
	textCorpus.Build(t, &text)
	for _, c := range text.Cases {
		seen[c.Class] = true
	}
	var missing []string
	for _, cl := range layers.Registered() {
		if _, no := notInKerasModels[cl]; no {
			continue
		}
		if layers.IsKerasClass(cl) && !seen[cl] {
			missing = append(missing, cl)
		}
	}
	if len(missing) > 0 {
		t.Errorf("neither the Keras catalogue (scripts/keras-catalogue.py) nor the text corpus (scripts/keras-text.py) has a model with %v", missing)
	}
	t.Logf("%d layer classes covered", len(seen))
}

// worstRelative is the largest |a - b| / max(1, |b|) over two lists of
// arrays of the same shapes.
func worstRelative(a, b []refArray) float64 {
	worst := 0.0
	for k := range b {
		for i, w := range b[k].Data {
			worst = math.Max(worst, math.Abs(a[k].Data[i]-w)/math.Max(1, math.Abs(w)))
		}
	}
	return worst
}
