package callbacks

import (
	"fmt"
	"io"
	"math"
	"os"
)

// TerminateOnNaN stops training when the loss becomes NaN or infinite,
// like keras.callbacks.TerminateOnNaN. Fit already stops on a NaN loss
// with an error; with this callback it stops quietly instead (returning
// the history without an error). Either way the model keeps the weights
// from before the failing batch.
type TerminateOnNaN struct {
	Base
	Output io.Writer // default os.Stdout
}

// OnTrainBatchEnd checks the batch's loss.
func (t *TerminateOnNaN) OnTrainBatchEnd(batch int, logs Logs) {
	if loss, ok := logs.Get("loss"); ok && (math.IsNaN(loss) || math.IsInf(loss, 0)) {
		out := t.Output
		if out == nil {
			out = os.Stdout
		}
		fmt.Fprintf(out, "Batch %d: Invalid loss, terminating training\n", batch)
		t.Model().StopTraining()
	}
}
