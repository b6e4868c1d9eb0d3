package keras

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The step functions below are what an engine compiles, in the stateless
// form of DESIGN.md: every tensor they read is an input and every tensor
// they change is an output.
//
//	train:   (params, optState, lr, x, y) -> (stats, trainable params', optState', assigned state')
//	eval:    (params, x, y)               -> (stats)
//	predict: (params, x)                  -> (yPred)
//
// stats is one vector [loss, metric sums...], so that the loop reads a
// step's scalars back in one copy. The learning rate is an input, not a
// constant, so that callbacks can change it between steps.

func (m *Model) trainFunc() backend.Func {
	c := m.compiled
	nP, nS := len(m.weights), len(c.optSpecs)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		params, state, lr, x, y := in[:nP], in[nP:nP+nS], in[nP+nS], in[nP+nS+1], in[nP+nS+2]
		pred, updates := m.forwardWithUpdates(b, params, x, true)
		loss := c.loss.Compute(b, y, pred)
		out := []backend.Value{m.stats(b, loss, y, pred)}
		trainable := make([]backend.Value, len(c.trainable))
		for k, i := range c.trainable {
			trainable[k] = params[i]
		}
		grads := b.Grad(loss, trainable)
		newT, newS := optimizers.Apply(b, c.opt, optimizers.Hyperparameters{LearningRate: lr}, trainable, grads, state)
		out = append(out, newT...)
		out = append(out, newS...)
		// Then the new values of non-trainable weights that layers
		// assigned (BatchNormalization's moving statistics), in weight
		// order; the loop adopts them after the step.
		c.assigned = c.assigned[:0]
		for i, w := range m.weights {
			if v, ok := updates[w]; ok {
				c.assigned = append(c.assigned, i)
				out = append(out, v)
			}
		}
		return out, nil
	}
}

func (m *Model) evalFunc() backend.Func {
	c := m.compiled
	nP := len(m.weights)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		params, x, y := in[:nP], in[nP], in[nP+1]
		pred := m.forward(b, params, x, false)
		loss := c.loss.Compute(b, y, pred)
		return []backend.Value{m.stats(b, loss, y, pred)}, nil
	}
}

// stats packs the loss and the metric sums into one vector: the sum of
// each scalar times its unit vector.
func (m *Model) stats(b backend.Builder, loss, y, pred backend.Value) backend.Value {
	vals := append([]backend.Value{loss}, m.metricSums(b, y, pred)...)
	k := len(vals)
	var out backend.Value
	for i, v := range vals {
		unit := make([]float64, k)
		unit[i] = 1
		term := b.Mul(b.Constant(unit, backend.Shape{k}), v)
		if out == nil {
			out = term
		} else {
			out = b.Add(out, term)
		}
	}
	return out
}

func (m *Model) predictFunc() backend.Func {
	nP := len(m.weights)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return []backend.Value{m.forward(b, in[:nP], in[nP], false)}, nil
	}
}

func (m *Model) metricSums(b backend.Builder, y, pred backend.Value) []backend.Value {
	out := make([]backend.Value, len(m.compiled.metrics))
	for i, mt := range m.compiled.metrics {
		out[i] = b.Sum(mt.Compute(b, y, pred))
	}
	return out
}

// executable returns the compiled step of a kind for a batch shape,
// compiling it on first use. One entry per batch size: the smaller last
// batch of an epoch gets its own entry and is trained, not dropped.
func (m *Model) executable(kind exeKind, x, y backend.Shape) (backend.Executable, error) {
	c := m.compiled
	key := exeKey{kind: kind, batch: x[0]}
	if e, ok := c.exes[key]; ok {
		return e, nil
	}
	var specs []backend.Spec
	for _, w := range m.weights {
		specs = append(specs, backend.Spec{Shape: w.Shape, DType: backend.Float32})
	}
	var fn backend.Func
	switch kind {
	case trainStep:
		for _, s := range c.optSpecs {
			specs = append(specs, backend.Spec{Shape: s.Shape, DType: backend.Float32})
		}
		specs = append(specs, backend.Spec{Shape: backend.Shape{}, DType: backend.Float32}) // learning rate
		fn = m.trainFunc()
	case evalStep:
		fn = m.evalFunc()
	case predictStep:
		fn = m.predictFunc()
	}
	specs = append(specs, backend.Spec{Shape: x, DType: backend.Float32})
	if kind != predictStep {
		specs = append(specs, backend.Spec{Shape: y, DType: backend.Float32})
	}
	e, err := c.be.Compile(fn, specs, backend.CompileOptions{Seed: c.opts.Seed + int64(key.batch)*7919 + int64(kind)})
	if err != nil {
		return nil, err
	}
	c.exes[key] = e
	return e, nil
}
