package keras

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// defaultTrainStep is Keras's Model.train_step, written with the Step API
// a custom step uses (Call, the compiled loss and metrics, gradients,
// Apply), so that the built-in and custom training steps compile through
// one path (trainFunc): predict, compute the compiled loss (with the
// layers' AddLoss terms and the weights' penalties) and the metrics,
// take the gradients of the trainable variables and apply the compiled
// optimizer to them.
func defaultTrainStep(s *Step, d StepData) (StepLogs, error) {
	preds := s.Call(s.m, true, d.X...)
	loss, logs := s.compiledLossAndMetrics(d.Y, preds, d.SampleWeights)
	vars := s.trainedVariables()
	// In a data-parallel job the gradients, the layers' assignments and
	// the logs are averaged over the processes in one collective
	// (Gradients would average the gradients alone).
	grads := s.averageTogether(s.gradients(loss, vars, false), logs)
	s.Apply(nil, grads, vars)
	return logs, nil
}

// defaultTestStep is Keras's Model.test_step: predict in inference mode,
// and the compiled loss and metrics.
func defaultTestStep(s *Step, d StepData) (StepLogs, error) {
	preds := s.Call(s.m, false, d.X...)
	_, logs := s.compiledLossAndMetrics(d.Y, preds, d.SampleWeights)
	return logs, nil
}

// compiledLossAndMetrics returns the compiled loss of yPred for y (as
// ComputeLoss: the outputs' losses times their weights, then the layers'
// AddLoss terms and the weights' penalties) and the built-in step's logs:
// "loss", each output's loss ("<output>_loss") when more than one output
// has one, then the compiled metrics (as ComputeMetrics). Each output's
// loss is computed once, for the total and for its log.
func (s *Step) compiledLossAndMetrics(y, yPred, sampleWeights []backend.Value) (backend.Value, StepLogs) {
	if !s.checkHeads("the compiled loss", y, yPred, sampleWeights) {
		return s.Scalar(0), StepLogs{{Name: "loss", Value: s.Scalar(0)}}
	}
	outputLosses := headLosses(s.Builder, s.c.heads, y, yPred, sampleWeights, s.masksOf(yPred))
	total := s.withModelLosses(weightedTotal(s.Builder, s.c.heads, outputLosses))
	if total == nil {
		s.fail("Compile got no Loss and the model adds none (a layer's AddLoss): give CompileOptions.Loss")
		return s.Scalar(0), StepLogs{{Name: "loss", Value: s.Scalar(0)}}
	}
	logs := StepLogs{{Name: "loss", Value: total}}
	if len(outputLosses) > 1 {
		k := 0
		for _, h := range s.c.heads {
			if h.loss != nil {
				logs = append(logs, StepLog{Name: h.name + "_loss", Value: outputLosses[k]})
				k++
			}
		}
	}
	return total, append(logs, s.ComputeMetrics(y, yPred, sampleWeights)...)
}

// trainedVariables returns the variables the compiled optimizer trains
// (Keras's trainable_variables, as they were at Compile: the trainable
// weights the compiled loss depends on).
func (s *Step) trainedVariables() []*layers.Weight {
	out := make([]*layers.Weight, len(s.c.trainable))
	for k, i := range s.c.trainable {
		out[k] = s.m.weights[i]
	}
	return out
}
