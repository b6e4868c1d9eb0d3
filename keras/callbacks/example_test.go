package callbacks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// StopAtLoss records every batch's loss and stops training once an epoch
// ends below Target: a callback of your own, as in Keras's guide "Writing
// your own callbacks".
type StopAtLoss struct {
	callbacks.Base
	Target      float64
	BatchLosses []float64
}

// OnTrainBatchEnd records the running loss of the epoch.
func (s *StopAtLoss) OnTrainBatchEnd(_ int, logs callbacks.Logs) {
	loss, _ := logs.Get("loss")
	s.BatchLosses = append(s.BatchLosses, loss)
}

// OnEpochEnd stops training when the epoch's loss is below Target.
func (s *StopAtLoss) OnEpochEnd(epoch int, logs callbacks.Logs) {
	if loss, _ := logs.Get("loss"); loss < s.Target {
		fmt.Printf("loss %.2f below %v after epoch %d: stopping\n", loss, s.Target, epoch+1)
		s.Model().StopTraining()
	}
}

func Example_customCallback() {
	// y = 2x - 1, learned by one Dense unit.
	x := keras.Array{Shape: []int{8, 1}, Data: []float32{-2, -1, 0, 1, 2, 3, 4, 5}}
	y := keras.Array{Shape: []int{8, 1}, Data: []float32{-5, -3, -1, 1, 3, 5, 7, 9}}
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{1}}, &layers.Dense{Units: 1}))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))

	stop := &StopAtLoss{Target: 0.5}
	history := keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent,
		Epochs: 500, BatchSize: 8, Callbacks: []callbacks.Callback{stop},
	}))
	fmt.Println("stopped early:", len(history.Epochs) < 500, "- one batch per epoch:", len(stop.BatchLosses) == len(history.Epochs))
	// Output:
	// loss 0.49 below 0.5 after epoch 41: stopping
	// stopped early: true - one batch per epoch: true
}

func ExampleTensorBoard() {
	x := keras.Array{Shape: []int{8, 1}, Data: []float32{-2, -1, 0, 1, 2, 3, 4, 5}}
	y := keras.Array{Shape: []int{8, 1}, Data: []float32{-5, -3, -1, 1, 3, 5, 7, 9}}
	model := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{1}}, &layers.Dense{Units: 1}))
	keras.MustOK(model.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))

	dir, err := os.MkdirTemp("", "logs")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	tb := &callbacks.TensorBoard{LogDir: dir, HistogramFreq: 1}
	keras.Must(model.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 4, Callbacks: []callbacks.Callback{tb}}))
	files, _ := filepath.Glob(filepath.Join(dir, "train", "events.out.tfevents.*"))
	fmt.Println("event files in train:", len(files))
	// Output:
	// event files in train: 1
}
