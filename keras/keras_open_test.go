package keras_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// openRequests is what scripts/keras-open.py reads: files kerasgo wrote
// for Keras to open.
type openRequests struct {
	Predict []predictRequest `json:"predict"`
	Train   []trainRequest   `json:"train"`
}

type predictRequest struct {
	Name   string     `json:"name"`
	Keras  string     `json:"keras"`
	Inputs []refArray `json:"inputs"`
}

type batchJSON struct {
	X []refArray `json:"x"` // one per input
	Y refArray   `json:"y"`
}

type trainRequest struct {
	Name        string      `json:"name"`
	Keras       string      `json:"keras"`
	WeightsH5   string      `json:"weights_h5"`
	Safetensors string      `json:"safetensors"`
	Batches     []batchJSON `json:"batches"`
}

// openResults is what Keras computed from kerasgo's files.
type openResults struct {
	Keras   string `json:"keras"`
	Predict map[string]struct {
		Error   string     `json:"error"`
		Outputs []refArray `json:"outputs"`
		Summary struct {
			Rows []struct {
				Name   string `json:"name"`
				Class  string `json:"class"`
				Shape  string `json:"shape"`
				Params int    `json:"params"`
			} `json:"rows"`
			Total int `json:"total"`
		} `json:"summary"`
	} `json:"predict"`
	Train map[string]struct {
		Error              string     `json:"error"`
		Losses             []float64  `json:"losses"`
		Weights            []refArray `json:"weights"`
		H5Weights          []refArray `json:"h5_weights"`
		SafetensorsChecked int        `json:"safetensors_checked"`
		SafetensorsDiffer  []string   `json:"safetensors_differ"`
	} `json:"train"`
}

// kerasgoPrediction is what kerasgo computed, to compare with Keras.
type kerasgoPrediction struct {
	outputs []keras.Array
	rows    [][4]string
	total   int
	tol     float64 // how far Keras's prediction may be
}

// kerasgoTraining is what kerasgo computed after saving a trained model.
type kerasgoTraining struct {
	losses  []float64
	weights [][]float32
}

// Open tolerances: predictions and next-step losses within 1e-5, weights
// after two more steps within 1e-5, relative to max(1, |Keras's|).
const openTol = 1e-5

// knownSummaryDifferences are catalogue models whose model.summary() in
// Keras differs from kerasgo's Summary because of Keras, with the reason
// (docs/saving.md lists them).
var knownSummaryDifferences = map[string]string{
	"multi_head_attention_scores": "Keras 3.15's summary gives the attention scores' shape as (None, 2, 4, 4), " +
		"the query's length twice, when the key is the value; the scores it computes are (batch, 2, 4, 5), as kerasgo's",
	"dense_glu": "Keras 3.15's summary gives Dense's units, 6, as its output's last axis; the glu activation halves them, " +
		"and the output Keras computes is (batch, 3), as kerasgo's",
	"einsum_dense_heads": "Keras 3.15's EinsumDense gives the output_shape it was given, (None, 2, 3), as its output's shape, " +
		"None where the input's length is shared; the output it computes is (batch, 5, 2, 3), as kerasgo's",
	"einsum_dense_ellipsis": "Keras 3.15's EinsumDense inserts the axes a left ellipsis stands for in reverse order " +
		"(_analyze_split_string inserts each at position 1), so its summary gives (None, 4, 3, 5); the output it computes is (batch, 3, 4, 5), as kerasgo's",
}

// halfPrecisionTol bounds, relative to max(1, |Keras's|), how far
// Keras's float16 or bfloat16 computation of a model with a
// reduced-precision dtype policy is from kerasgo's float32 one (the
// catalogue measures up to 8e-3 for mixed_bfloat16), or from its
// bfloat16 one on an engine that has it.
const halfPrecisionTol = 2e-2

// hasReducedPrecision reports whether one of m's layers has a
// reduced-precision dtype policy.
func hasReducedPrecision(m *keras.Model) bool {
	for _, l := range m.Layers() {
		if l.Common().DTypePolicy() != "" {
			return true
		}
	}
	return false
}

// Keras opens what kerasgo saves. Every catalogue model kerasgo loads
// is saved again by kerasgo (.keras): Keras's load_model opens it and
// predicts what kerasgo predicts, and model.summary()'s layers, output
// shapes and parameter counts equal kerasgo's Summary. Every training
// case, trained one epoch in kerasgo on each engine and saved with its
// optimizer state, continues in Keras (train_on_batch) with kerasgo's
// next-step losses and weights; its .weights.h5 loads into Keras's model
// with kerasgo's weights, and its .safetensors holds the same tensors.
func TestKerasOpensKerasgoFiles(t *testing.T) {
	python := kerasref.Python(t)
	var catIndex struct {
		Cases []catalogueCase `json:"cases"`
	}
	catDir := catalogueCorpus.Build(t, &catIndex)
	var trainIndex struct {
		Batch int            `json:"batch_size"`
		Cases []trainingCase `json:"cases"`
	}
	trainDir := trainingCorpus.Build(t, &trainIndex)
	out := t.TempDir()
	var req openRequests
	predictions := map[string]kerasgoPrediction{}
	trainings := map[string]kerasgoTraining{}
	first := true
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		load := func(path string) *keras.Model {
			t.Helper()
			m, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		if first { // the files are the same from every engine: save the catalogue from the first
			first = false
			for _, c := range catIndex.Cases {
				m, err := keras.LoadModel(filepath.Join(catDir, c.Name+".keras"), keras.LoadOptions{Backend: be.Name()})
				if err != nil {
					continue // refused: TestKerasCatalogue accounts for it
				}
				var ref struct{ Inputs []refArray }
				readJSON(t, filepath.Join(catDir, c.Name+".json"), &ref)
				var xs keras.Arrays
				for _, in := range ref.Inputs {
					xs = append(xs, in.array())
				}
				outs, err := m.PredictOutputs(context.Background(), xs, keras.PredictOptions{})
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				path := filepath.Join(out, "catalogue_"+c.Name+".keras")
				if err := m.Save(path); err != nil {
					t.Errorf("%s: kerasgo cannot save what it loaded: %v", c.Name, err)
					continue
				}
				tol := openTol
				if hasReducedPrecision(m) { // Keras computes in float16 or bfloat16, kerasgo in float32 or rounding elsewhere
					tol = halfPrecisionTol
				}
				predictions[c.Name] = kerasgoPrediction{outputs: outs, rows: keras.SummaryRows(m), total: m.CountParams(), tol: tol}
				req.Predict = append(req.Predict, predictRequest{Name: c.Name, Keras: path, Inputs: ref.Inputs})
			}
		}
		if _, done := predictions["mlp_block"]; !done { // a layer holding layers (sublayers_test.go), trained a little
			in := layers.Input(6)
			m := keras.Must(keras.NewModel(in, layers.Apply(newMLPBlock(), in)))
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 2}); err != nil {
				t.Fatal(err)
			}
			x, y := smallData(32)
			if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, BatchSize: 8, Verbose: keras.Silent}); err != nil {
				t.Fatal(err)
			}
			outs, err := m.PredictOutputs(context.Background(), x, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(out, "mlp_block.keras")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			predictions["mlp_block"] = kerasgoPrediction{outputs: outs, rows: keras.SummaryRows(m), total: m.CountParams(), tol: openTol}
			req.Predict = append(req.Predict, predictRequest{Name: "mlp_block", Keras: path, Inputs: []refArray{toRef(x)}})
		}
		if _, done := predictions["any_length_encoder_5"]; !done { // keras.io's NLP pattern over inputs of any length
			m := newAnyLengthEncoder(t, be)
			x, y := taggingData(8, 6)
			if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, BatchSize: 4, Verbose: keras.Silent}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(out, "any_length_encoder.keras")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			for _, steps := range []int{5, 9} {
				x, _ := taggingData(4, steps)
				outs, err := m.PredictOutputs(context.Background(), x, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("any_length_encoder_%d", steps)
				predictions[name] = kerasgoPrediction{outputs: outs, rows: keras.SummaryRows(m), total: m.CountParams(), tol: openTol}
				req.Predict = append(req.Predict, predictRequest{Name: name, Keras: path, Inputs: []refArray{intsRef(x)}})
			}
		}
		for _, c := range trainIndex.Cases {
			name := be.Name() + "/" + c.Name
			m := load(filepath.Join(trainDir, c.Name+".keras"))
			var rec trainingRecord
			readJSON(t, filepath.Join(trainDir, c.Name+".json"), &rec)
			opts := rec.fitOptions(1, trainIndex.Batch)
			x, y := rec.inputs(), rec.Y.array()
			if _, err := m.Fit(context.Background(), x, y, opts); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			base := filepath.Join(out, be.Name()+"_"+c.Name)
			if err := m.Save(base + ".keras"); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tr := trainRequest{Name: name, Keras: base + ".keras", WeightsH5: base + ".weights.h5", Safetensors: base + ".safetensors"}
			var kg kerasgoTraining
			for b := 0; b < 2; b++ {
				bx, by := rowsOf(x, b*trainIndex.Batch, (b+1)*trainIndex.Batch), y.Rows(b*trainIndex.Batch, (b+1)*trainIndex.Batch)
				logs, err := m.TrainOnBatch(context.Background(), bx, by, keras.OnBatchOptions{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				loss, _ := logs.Get("loss")
				kg.losses = append(kg.losses, loss)
				batch := batchJSON{Y: toRef(by)}
				for _, a := range bx {
					batch.X = append(batch.X, toRef(a))
				}
				tr.Batches = append(tr.Batches, batch)
			}
			var err error
			if kg.weights, err = m.GetWeights(); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{tr.WeightsH5, tr.Safetensors} {
				if err := m.SaveWeights(p); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			trainings[name] = kg
			req.Train = append(req.Train, tr)
		}
	})
	if t.Failed() {
		return
	}
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "requests.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	kerasref.Run(t, python, kerasref.Script(t, "keras-open.py"), out)
	var res openResults
	readJSON(t, filepath.Join(out, "results.json"), &res)

	opened, summaries, known := 0, 0, 0
	for _, r := range req.Predict {
		got, want := predictions[r.Name], res.Predict[r.Name]
		if want.Error != "" {
			t.Errorf("%s: Keras cannot open kerasgo's file: %s", r.Name, want.Error)
			continue
		}
		if d, where := worstDiff(got.outputs, want.Outputs); !(d <= got.tol) {
			if why, ok := knownDifferences[r.Name]; ok {
				t.Logf("%s: Keras's prediction differs from kerasgo's by %g, known: %s", r.Name, d, why)
				known++
				continue
			}
			t.Errorf("%s: Keras's prediction from kerasgo's file differs from kerasgo's by %g (%s)", r.Name, d, where)
			continue
		}
		opened++
		if p := summaryProblems(got, want.Summary.Rows, want.Summary.Total); p != "" {
			if why := knownSummaryDifferences[r.Name]; why != "" {
				t.Logf("%s: Summary differs from Keras's model.summary(), known: %s", r.Name, why)
			} else {
				t.Errorf("%s: Summary differs from Keras's model.summary():\n%s", r.Name, p)
			}
			continue
		}
		summaries++
	}
	continued := 0
	for _, r := range req.Train {
		got, want := trainings[r.Name], res.Train[r.Name]
		if want.Error != "" {
			t.Errorf("%s: Keras cannot continue kerasgo's training: %s", r.Name, want.Error)
			continue
		}
		var problems []string
		for i, l := range want.Losses {
			if d := math.Abs(got.losses[i]-l) / math.Max(1, math.Abs(l)); !(d <= openTol) {
				problems = append(problems, fmt.Sprintf("loss of step %d after the file: kerasgo %g, Keras %g", i+1, got.losses[i], l))
			}
		}
		problems = append(problems, compareWeightsTol("weights after two more steps", got.weights, want.Weights, openTol)...)
		problems = append(problems, compareWeightsTol("weights from the .weights.h5", got.weights, want.H5Weights, 1e-7)...)
		if len(want.SafetensorsDiffer) > 0 || want.SafetensorsChecked == 0 {
			problems = append(problems, fmt.Sprintf(".safetensors and .weights.h5 differ in %v (of %d tensors)", want.SafetensorsDiffer, want.SafetensorsChecked))
		}
		if len(problems) > 0 {
			t.Errorf("%s:\n  %s", r.Name, strings.Join(problems, "\n  "))
			continue
		}
		continued++
	}
	t.Logf("Keras %s opens kerasgo's files: %d of %d catalogue models predict as kerasgo does (%d with equal summaries), %d differ where Keras is known to be wrong; %d of %d trained models (every training case on each engine) continue training in Keras with kerasgo's next-step losses, and their .weights.h5 and .safetensors hold kerasgo's weights",
		res.Keras, opened, len(req.Predict), summaries, known, continued, len(req.Train))
}

// toRef converts a float32 Array to the scripts' JSON form.
// intsRef converts token ids to an array as the Keras scripts read them.
func intsRef(a keras.Array) refArray {
	r := refArray{Shape: a.Shape, Data: make([]float64, len(a.Ints))}
	for i, v := range a.Ints {
		r.Data[i] = float64(v)
	}
	return r
}

func toRef(a keras.Array) refArray {
	r := refArray{Shape: a.Shape, Data: make([]float64, len(a.Data))}
	for i, v := range a.Data {
		r.Data[i] = float64(v)
	}
	return r
}

// worstDiff is the largest difference of got from want, relative to
// max(1, |want|), and where.
func worstDiff(got []keras.Array, want []refArray) (float64, string) {
	if len(got) != len(want) {
		return math.Inf(1), fmt.Sprintf("%d outputs, Keras %d", len(got), len(want))
	}
	worst, where := 0.0, ""
	for k, w := range want {
		if len(got[k].Data) != len(w.Data) {
			return math.Inf(1), fmt.Sprintf("output %d has %d values, Keras's %d", k, len(got[k].Data), len(w.Data))
		}
		for i, v := range w.Data {
			if d := math.Abs(float64(got[k].Data[i])-v) / math.Max(1, math.Abs(v)); d > worst || math.IsNaN(d) {
				worst, where = d, fmt.Sprintf("output %d value %d: kerasgo %g, Keras %g", k, i, got[k].Data[i], v)
			}
		}
	}
	return worst, where
}

// summaryProblems compares kerasgo's Summary rows with Keras's.
func summaryProblems(got kerasgoPrediction, want []struct {
	Name   string `json:"name"`
	Class  string `json:"class"`
	Shape  string `json:"shape"`
	Params int    `json:"params"`
}, total int) string {
	var out []string
	if got.total != total {
		out = append(out, fmt.Sprintf("  total parameters: kerasgo %d, Keras %d", got.total, total))
	}
	if len(got.rows) != len(want) {
		out = append(out, fmt.Sprintf("  %d rows, Keras %d", len(got.rows), len(want)))
	}
	for i := 0; i < min(len(got.rows), len(want)); i++ {
		w := want[i]
		wantRow := [3]string{fmt.Sprintf("%s (%s)", w.Name, w.Class), w.Shape, strconv.Itoa(w.Params)}
		if gotRow := [3]string{got.rows[i][0], got.rows[i][1], got.rows[i][2]}; gotRow != wantRow {
			out = append(out, fmt.Sprintf("  row %d: kerasgo %q, Keras %q", i, gotRow, wantRow))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
