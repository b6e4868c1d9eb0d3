package callbacks

import "fmt"

// emaSwapper is a model whose optimizer keeps moving averages of its
// weights (keras.Model with Options.UseEMA).
type emaSwapper interface {
	SwapEMAWeights() error
	CopyWeightsToEMA() error
}

// SwapEMAWeights is keras.callbacks.SwapEMAWeights: with an optimizer
// that keeps moving averages of the weights (Options.UseEMA), the
// validation during Fit, Evaluate and Predict use the averages, and
// training goes on from the weights. With SwapOnEpoch, the averages are
// also in the model between epochs, when the other callbacks see it
// (ModelCheckpoint then saves them); put SwapEMAWeights before such
// callbacks. After the last epoch the averages stay, as Fit leaves them
// with UseEMA anyway.
//
// It differs from Keras in one place: Keras 3.15.1's on_predict_end does
// not swap back (its condition is inverted), so a Predict with it leaves
// the averages in the model; kerasgo swaps back.
type SwapEMAWeights struct {
	Base
	SwapOnEpoch bool

	emaInModel bool
	epochs     int
	err        error
}

// Err returns the first failure: the model keeps no moving averages.
func (s *SwapEMAWeights) Err() error { return s.err }

func (s *SwapEMAWeights) swapper() emaSwapper {
	if s.err != nil {
		return nil
	}
	sw, ok := s.Model().(emaSwapper)
	if !ok {
		s.err = fmt.Errorf("SwapEMAWeights: the model (%T) keeps no moving averages of its weights", s.Model())
		return nil
	}
	return sw
}

// swap exchanges the weights and their averages, remembering which are in
// the model.
func (s *SwapEMAWeights) swap() {
	sw := s.swapper()
	if sw == nil {
		return
	}
	if err := sw.SwapEMAWeights(); err != nil {
		s.err = err
		return
	}
	s.emaInModel = !s.emaInModel
}

// OnTrainBegin records the number of epochs.
func (s *SwapEMAWeights) OnTrainBegin(p Params) { s.epochs, s.emaInModel = p.Epochs, false }

// OnEpochBegin puts the weights back for training (SwapOnEpoch).
func (s *SwapEMAWeights) OnEpochBegin(int) {
	if s.SwapOnEpoch && s.emaInModel {
		s.swap()
	}
}

// OnEpochEnd puts the averages in the model (SwapOnEpoch); after the last
// epoch they become the averages too, so that Fit's end keeps them.
func (s *SwapEMAWeights) OnEpochEnd(epoch int, _ Logs) {
	if !s.SwapOnEpoch || s.emaInModel {
		return
	}
	s.swap()
	if s.emaInModel && epoch == s.epochs-1 {
		if err := s.swapper().CopyWeightsToEMA(); err != nil {
			s.err = err
		}
	}
}

// OnTestBegin puts the averages in the model for the evaluation.
func (s *SwapEMAWeights) OnTestBegin(Params) {
	if !s.emaInModel {
		s.swap()
	}
}

// OnTestEnd puts the weights back.
func (s *SwapEMAWeights) OnTestEnd(Logs) {
	if s.emaInModel {
		s.swap()
	}
}

// OnPredictBegin puts the averages in the model for the predictions.
func (s *SwapEMAWeights) OnPredictBegin(Params) {
	if !s.emaInModel {
		s.swap()
	}
}

// OnPredictEnd puts the weights back.
func (s *SwapEMAWeights) OnPredictEnd() {
	if s.emaInModel {
		s.swap()
	}
}
