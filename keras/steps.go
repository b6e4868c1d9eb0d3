package keras

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// hyperparameters is the length of the training step's settings vector:
// learning rate, iteration count, update flag, EMA overwrite flag (see
// optimizers.Hyperparameters).
const hyperparameters = 4

// The step functions below are what an engine compiles, in the stateless
// form of DESIGN.md: every tensor they read is an input and every tensor
// they change is an output.
//
//	train:   (params, optState, hyper, xs, ys[, sws]) -> (stats, trainable params', optState', assigned state')
//	eval:    (params, xs, ys[, sws])               -> (stats)
//	predict: (params, xs)                          -> (yPreds)
//
// xs holds one tensor per model input, ys one per output, and sws, when
// the data has sample weights, one (batch,) weight vector per output. stats is one
// vector [loss, output losses..., metric sums...] (see statNames), so that
// the loop reads a step's scalars back in one copy. The learning rate (in
// hyper, with the iteration count and the optimizer's step flags) is an
// input, not a constant, so that callbacks can change it between steps.

func (m *Model) trainFunc(c *compiled, weighted bool) backend.Func {
	nP, nS, nX, nY := len(m.weights), len(c.optSpecs), len(m.inputs), len(m.outputs)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		params, state, hyper := in[:nP], in[nP:nP+nS], in[nP+nS]
		xs, ys := in[nP+nS+1:nP+nS+1+nX], in[nP+nS+1+nX:nP+nS+1+nX+nY]
		var sws []backend.Value
		if weighted {
			sws = in[nP+nS+1+nX+nY:]
		}
		preds, updates := m.forwardWithUpdates(b, params, xs, true)
		loss, stats := lossAndStats(b, c.heads, ys, preds, sws)
		trainable := make([]backend.Value, len(c.trainable))
		for k, i := range c.trainable {
			trainable[k] = params[i]
		}
		grads := b.Grad(loss, trainable)
		// The new values of non-trainable weights that layers assigned
		// (BatchNormalization's moving statistics), in weight order; the
		// loop adopts them after the step.
		c.assigned = c.assigned[:0]
		var assigned []backend.Value
		for i, w := range m.weights {
			if v, ok := updates[w]; ok {
				c.assigned = append(c.assigned, i)
				assigned = append(assigned, v)
			}
		}
		if dp := m.dist(); dp != nil {
			grads, assigned, stats = averageAcrossProcesses(b, dp, c.heads, grads, assigned, stats)
		}
		scalar := func(i int) backend.Value { return b.Reshape(b.Slice(hyper, []int{i}, []int{1}), backend.Shape{}) }
		hp := optimizers.Hyperparameters{LearningRate: scalar(0), Iteration: scalar(1), ApplyUpdate: scalar(2), OverwriteWithEMA: scalar(3)}
		newT, newS := optimizers.Apply(b, c.opt, hp, trainable, grads, state)
		out := append([]backend.Value{stats}, newT...)
		out = append(out, newS...)
		out = append(out, assigned...)
		return out, nil
	}
}

func (m *Model) evalFunc(c *compiled, weighted bool) backend.Func {
	nP, nX, nY := len(m.weights), len(m.inputs), len(m.outputs)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		params, xs, ys := in[:nP], in[nP:nP+nX], in[nP+nX:nP+nX+nY]
		var sws []backend.Value
		if weighted {
			sws = in[nP+nX+nY:]
		}
		_, stats := lossAndStats(b, c.heads, ys, m.forward(b, params, xs, false), sws)
		return []backend.Value{stats}, nil
	}
}

func (m *Model) predictFunc() backend.Func {
	nP := len(m.weights)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return m.forward(b, in[:nP], in[nP:], false), nil
	}
}

// lossAndStats returns the loss training minimises (the sum of each
// output's loss times its weight, as Keras's CompileLoss) and the step's
// statistics in one vector laid out as stats says: the total loss, each
// output's loss (before its loss weight) when several outputs have one,
// then each output's metrics (per-sample sums, or an accumulator's
// totals). With sample weights sws, each output's loss is
// sum(values * weights) / count (Keras's "sum_over_batch_size").
func lossAndStats(b backend.Builder, heads []*head, ys, preds, sws []backend.Value) (backend.Value, backend.Value) {
	var total backend.Value
	var outputLosses, vals []backend.Value
	for i, h := range heads {
		if h.loss == nil {
			continue
		}
		var l backend.Value
		if sws != nil {
			l = losses.Reduce(b, h.loss.(losses.Weighted), ys[i], preds[i], sws[i])
		} else {
			l = h.loss.Compute(b, ys[i], preds[i])
		}
		outputLosses = append(outputLosses, l)
		if h.weight != 1 {
			l = b.Mul(l, b.Scalar(h.weight))
		}
		if total == nil {
			total = l
		} else {
			total = b.Add(total, l)
		}
	}
	vals = append(vals, total)
	if len(outputLosses) > 1 {
		vals = append(vals, outputLosses...)
	}
	for i, h := range heads {
		for _, mt := range h.metrics {
			switch v := mt.(type) {
			case metrics.Accumulator:
				vals = append(vals, v.Totals(b, ys[i], preds[i]))
			case metrics.Sample:
				vals = append(vals, b.Sum(v.Compute(b, ys[i], preds[i])))
			}
		}
	}
	return total, pack(b, vals)
}

// pack joins scalars and vectors into one vector.
func pack(b backend.Builder, vals []backend.Value) backend.Value {
	parts := make([]backend.Value, len(vals))
	for i, v := range vals {
		parts[i] = b.Reshape(v, backend.Shape{v.Shape().Size()})
	}
	return b.Concat(0, parts...)
}

// compileStep compiles the step of key's kind for batch d's shapes on
// bind's engine (c is nil for a prediction without Compile). The binding
// caches it per key (exeCache): the smaller last batch of an epoch gets
// its own entry and is trained, not dropped.
func (m *Model) compileStep(bind *binding, c *compiled, key exeKey, d dataset) (backend.Executable, error) {
	var specs []backend.Spec
	for _, w := range m.weights {
		specs = append(specs, backend.Spec{Shape: w.Shape, DType: backend.Float32})
	}
	var fn backend.Func
	switch key.kind {
	case trainStep:
		for _, s := range c.optSpecs {
			specs = append(specs, backend.Spec{Shape: s.Shape, DType: backend.Float32})
		}
		specs = append(specs, backend.Spec{Shape: backend.Shape{hyperparameters}, DType: backend.Float32})
		fn = m.trainFunc(c, key.weighted)
	case evalStep:
		fn = m.evalFunc(c, key.weighted)
	case predictStep:
		fn = m.predictFunc()
	}
	// The x arrays' dtypes follow the model's inputs (resolveData), so the
	// batch size and the kind key one executable.
	for _, a := range d.x {
		specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: a.dtype()})
	}
	if key.kind != predictStep {
		for _, a := range d.y {
			specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: backend.Float32})
		}
		if key.weighted {
			for _, a := range d.sw {
				specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: backend.Float32})
			}
		}
	}
	var seed int64
	if c != nil {
		seed = c.opts.Seed + int64(key.batch)*7919 + int64(key.kind)
	}
	if dp := m.dist(); dp != nil { // each process draws its own dropout masks
		seed += int64(dp.Rank()) * 1000003
	}
	return bind.be.Compile(fn, specs, backend.CompileOptions{Seed: seed})
}
