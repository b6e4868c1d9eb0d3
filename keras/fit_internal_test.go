package keras

import (
	"context"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/gorgonia"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The last, smaller batch is trained with its own compiled step, not
// dropped: 10 samples in batches of 4 give steps of 4, 4 and 2.
func TestLastSmallBatchIsTrained(t *testing.T) {
	m, err := NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileOptions{Optimizer: &optimizers.SGD{}, Loss: Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	x := Array{Shape: []int{10, 3}, Data: make([]float32, 30)}
	y := Array{Shape: []int{10, 1}, Data: make([]float32, 10)}
	for i := range y.Data {
		y.Data[i] = 1
	}
	steps := 0
	counter := &batchCounter{n: &steps}
	if _, err := m.Fit(context.Background(), x, y, FitOptions{Verbose: Silent, Epochs: 1, BatchSize: 4, Callbacks: []callbacks.Callback{counter}}); err != nil {
		t.Fatal(err)
	}
	if steps != 3 {
		t.Errorf("%d steps, want 3", steps)
	}
	var batches []int
	for _, k := range m.compiled.bind.exes.keys() {
		if k.kind == trainStep {
			batches = append(batches, k.batch)
		}
	}
	if len(batches) != 2 {
		t.Errorf("compiled training steps for batch sizes %v, want 4 and 2", batches)
	}
}

type batchCounter struct {
	callbacks.Base
	n *int
}

func (c *batchCounter) OnTrainBatchEnd(int, callbacks.Logs) { *c.n++ }
