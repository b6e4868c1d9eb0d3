package keras

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// weightPenalties returns the penalties of the regularized weights among
// m's trained weights (the indices trained, into m.weights), each of the
// value value(i) gives: Keras's weight-regularization losses, which a
// step adds to its loss once (model.losses has one per variable, however
// often its layer is called). Frozen weights are not penalised, as Keras
// regularizes trainable_weights only.
func (m *Model) weightPenalties(b backend.Builder, trained []int, value func(w *layers.Weight) backend.Value) []backend.Value {
	var out []backend.Value
	for _, i := range trained {
		w := m.weights[i]
		if w.Regularizer != nil {
			out = append(out, w.Regularizer.Penalty(b, value(w)))
		}
	}
	return out
}

// constrain applies each weight's constraint to its new value after an
// optimizer's update (Keras's optimizer.apply:
// variable.assign(variable.constraint(variable))), in place.
func constrain(b backend.Builder, weights []*layers.Weight, values []backend.Value) {
	for i, w := range weights {
		if w.Constraint != nil {
			values[i] = w.Constraint.Apply(b, values[i])
		}
	}
}
