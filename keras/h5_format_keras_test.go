package keras_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// legacyH5Case is one file scripts/keras-legacy-h5.py wrote.
type legacyH5Case struct {
	X                []float32 `json:"x"`
	XShape           []int     `json:"x_shape"`
	Predictions      []float64 `json:"predictions"`
	PredictionsShape []int     `json:"predictions_shape"`
	Optimizer        string    `json:"optimizer"`
	LearningRate     float64   `json:"learning_rate"`
	StepX            []float32 `json:"step_x"`
	StepXShape       []int     `json:"step_x_shape"`
	StepY            []float32 `json:"step_y"`
	StepLoss         float64   `json:"step_loss"`
	AfterStep        []float64 `json:"after_step"`
	Iterations       int       `json:"iterations"`
}

// Whole models that Keras 3 and tf_keras (Keras 2) saved with
// model.save("x.h5"), trained one epoch, load as Keras 3's load_model
// loads them: the config (Keras 2's spelling too), the weights by the
// legacy layout, the compile settings (Adam at the saved learning rate,
// the loss) and the optimizer's state; they predict what Keras predicted
// within 1e-5 on every engine, and one more training step logs Keras's
// loss and leaves Keras's predictions (which depend on Adam's moments and
// step count) within 1e-5.
func TestLoadModelH5FormatFromKeras(t *testing.T) {
	python := kerasref.Python(t)
	dir := t.TempDir()
	kerasref.Run(t, python, kerasref.Script(t, "keras-legacy-h5.py"), dir)
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index map[string]legacyH5Case
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"keras3_sequential.h5", "keras3_functional.h5", "tf_keras_sequential.h5", "tf_keras_functional.h5"} {
		c, ok := index[file]
		if !ok {
			t.Logf("%s SKIPPED: the Keras environment has no tf_keras: run `make keras-env`", file)
			continue
		}
		t.Run(file, func(t *testing.T) {
			backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
				m, err := keras.LoadModel(filepath.Join(dir, file), keras.LoadOptions{Backend: be.Name()})
				if err != nil {
					t.Fatal(err)
				}
				adam, ok := m.Optimizer().(*optimizers.Adam)
				if !ok || c.Optimizer != "Adam" || math.Abs(adam.LearningRate-c.LearningRate) > 1e-7 {
					t.Errorf("optimizer %#v, Keras's %s at learning rate %g", m.Optimizer(), c.Optimizer, c.LearningRate)
				}
				if notes := m.Notes(); len(notes) > 0 {
					t.Errorf("notes %q: the file should load whole", notes)
				}
				got, err := m.Predict(context.Background(), keras.Array{Shape: c.XShape, Data: c.X}, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Shape, c.PredictionsShape) {
					t.Fatalf("predictions of shape %v, Keras's %v", got.Shape, c.PredictionsShape)
				}
				worst := 0.0
				for i, v := range got.Data {
					worst = max(worst, math.Abs(float64(v)-c.Predictions[i]))
				}
				if !(worst <= 1e-5) {
					t.Errorf("predictions differ from Keras's by up to %.3g", worst)
				}
				logs, err := m.TrainOnBatch(context.Background(), keras.Array{Shape: c.StepXShape, Data: c.StepX}, keras.Array{Shape: []int{len(c.StepY)}, Data: c.StepY}, keras.OnBatchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if loss, _ := logs.Get("loss"); math.Abs(loss-c.StepLoss) > 1e-5 {
					t.Errorf("the next step's loss %v, Keras's %v", loss, c.StepLoss)
				}
				after, err := m.Predict(context.Background(), keras.Array{Shape: c.XShape, Data: c.X}, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				worstAfter := 0.0
				for i, v := range after.Data {
					worstAfter = max(worstAfter, math.Abs(float64(v)-c.AfterStep[i]))
				}
				if !(worstAfter <= 1e-5) {
					t.Errorf("after one more step the predictions differ from Keras's by up to %.3g: the optimizer's state did not load as Keras's", worstAfter)
				}
				t.Logf("largest difference from Keras's predictions: %.3g, after one more step (Keras's step %d): %.3g", worst, c.Iterations, worstAfter)
			})
		})
	}
}

// A weights-only legacy file given to LoadModel says to build the model
// and load the weights.
func TestLoadModelH5FormatWeightsOnly(t *testing.T) {
	path := writeH5Format(t, [2]string{"a", "b"}, [2]int{4, 2}, false)
	if _, err := keras.LoadModel(path); err == nil || !strings.Contains(err.Error(), "holds weights only (save_weights): build the model, then LoadWeights") {
		t.Fatalf("LoadModel of a weights file: %v", err)
	}
}
