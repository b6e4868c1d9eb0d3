package serving

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/kerasgo/kerasgo/keras"
)

// servable is one version of a served model: the model, its inputs and
// outputs, and the batcher that runs its predictions.
type servable struct {
	version         int
	model           *keras.Model
	inputs, outputs []tensorSpec
	batcher         *batcher
	stamp           fileStamp // of the file it was loaded from (zero for a model given as is)
	owned           bool      // loaded by the server, which closes it when it retires
}

// fileStamp identifies a version of a file: a save (which writes a new
// file and renames it over the old) or an edit changes it.
type fileStamp struct {
	size    int64
	modTime time.Time
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: fi.Size(), modTime: fi.ModTime()}, nil
}

// loadFile loads a .keras file for serving on the given engine, and checks
// it before it serves (checkModel).
func loadFile(path, engine string) (*keras.Model, fileStamp, error) {
	stamp, err := stampOf(path)
	if err != nil {
		return nil, stamp, err
	}
	m, err := keras.LoadModel(path, keras.LoadOptions{Backend: engine, NoCompile: true})
	if err != nil {
		return nil, stamp, err
	}
	if err := checkModel(m); err != nil {
		m.Close()
		return nil, stamp, fmt.Errorf("%s: %w", path, err)
	}
	return m, stamp, nil
}

// checkModel checks that a model can serve: it is built, its weights are
// finite, and (when its inputs have no dimension of any length) it
// predicts one sample of zeros. The prediction also compiles the
// engine's program for single samples before the first request comes.
func checkModel(m *keras.Model) error {
	if !m.Built() {
		return errors.New("the model is not built: give it an Input (or call BuildInput) before serving it")
	}
	ws, err := m.GetWeights()
	if err != nil {
		return err
	}
	for i, w := range ws {
		for _, v := range w {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("weight %s holds %v: the model is broken (was it saved after a NaN loss?)", m.Weights()[i].Name, v)
			}
		}
	}
	inputs, _ := specsOf(m)
	x := make(keras.Arrays, len(inputs))
	for i, s := range inputs {
		n := 1
		for _, d := range s.shape {
			if d < 0 {
				return nil // a length to be given by the data: nothing to probe with
			}
			n *= d
		}
		x[i] = keras.Array{Shape: append([]int{1}, s.shape...), Data: make([]float32, n)}
		if s.strs {
			x[i] = keras.Array{Shape: append([]int{1}, s.shape...), Strings: make([]string, n)}
		}
	}
	if _, err := m.PredictOutputs(context.Background(), x, keras.PredictOptions{BatchSize: 1}); err != nil {
		return fmt.Errorf("predicting one sample of zeros: %w", err)
	}
	return nil
}
