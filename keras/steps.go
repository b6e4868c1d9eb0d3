package keras

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// hyperparameters is the length of one optimizer's part of the training
// step's settings vector: learning rate, iteration count, update flag,
// EMA overwrite flag (see optimizers.Hyperparameters).
const hyperparameters = 4

// The step functions below are what an engine compiles, in the stateless
// form of DESIGN.md: every tensor they read is an input and every tensor
// they change is an output (stepInputs names the inputs' parts).
//
//	train:   (params, optState, hyper, xs, ys[, sws]) -> (stats, updated params', optState')
//	eval:    (params, xs, ys[, sws])               -> (stats)
//	predict: (params, xs)                          -> (yPreds)
//
// xs holds one tensor per model input, ys one per output, and sws, when
// the data has sample weights, one (batch,) weight vector per output.
// stats is one vector laid out as compiled.trainStats (or testStats) say:
// [loss, output losses..., metric sums...] for the built-in steps, a
// custom step's logs for its own, so that the loop reads a step's scalars
// back in one copy. The updated params are those of compiled.updated, in
// its order (the built-in step: the trained weights, then the weights
// layers assigned). hyper holds, for each optimizer the step applies
// (compiled.slots), its learning rate, iteration count and step flags:
// inputs, not constants, so that callbacks can change them between steps.

// stepInputs are a compiled step's inputs by part.
type stepInputs struct {
	params, state []backend.Value
	hyper         backend.Value // nil outside training
	xs, ys, sws   []backend.Value
}

// splitInputs names the parts of a step's inputs: nP weights, nS
// optimizer states and the hyperparameters (train steps only), nX x
// arrays, nY y arrays and, when weighted, nY sample-weight vectors.
func splitInputs(in []backend.Value, train bool, nP, nS, nX, nY int, weighted bool) stepInputs {
	var l stepInputs
	l.params, in = in[:nP], in[nP:]
	if train {
		l.state, l.hyper, in = in[:nS], in[nS], in[nS+1:]
	}
	l.xs, in = in[:nX], in[nX:]
	l.ys, in = in[:nY], in[nY:]
	if weighted {
		l.sws = in[:nY]
	}
	return l
}

func (c *compiled) trainInputs(m *Model, in []backend.Value, weighted bool) stepInputs {
	return splitInputs(in, true, len(m.weights), len(c.optSpecs), len(m.feeds), len(m.outputs), weighted)
}

func (c *compiled) evalInputs(m *Model, in []backend.Value, weighted bool) stepInputs {
	return splitInputs(in, false, len(m.weights), 0, len(m.feeds), len(m.outputs), weighted)
}

func (m *Model) trainFunc(c *compiled, weighted bool) backend.Func {
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		l := c.trainInputs(m, in, weighted)
		ctx := m.forwardContext(b, l.params, true)
		preds := m.call(ctx, l.xs)
		loss, st := lossAndStats(b, c.heads, l.ys, preds, l.sws, append(ctx.Losses(), m.weightPenalties(b, m.trainableWeights(), ctx.Weight)...))
		trainable := make([]backend.Value, len(c.trainable))
		for k, i := range c.trainable {
			trainable[k] = l.params[i]
		}
		grads := b.Grad(loss, trainable)
		// The new values of non-trainable weights that layers assigned
		// (BatchNormalization's moving statistics), in weight order; the
		// loop adopts them after the step.
		updates := ctx.Updates()
		c.updated = append(c.updated[:0], c.trainable...)
		var assigned []backend.Value
		for i, w := range m.weights {
			if v, ok := updates[w]; ok {
				c.updated = append(c.updated, i)
				assigned = append(assigned, v)
			}
		}
		if dp := m.dist(); dp != nil {
			grads, assigned, st = averageAcrossProcesses(b, dp, stats(c.heads), grads, assigned, st)
		}
		scalar := func(i int) backend.Value { return b.Reshape(b.Slice(l.hyper, []int{i}, []int{1}), backend.Shape{}) }
		hp := optimizers.Hyperparameters{LearningRate: scalar(0), Iteration: scalar(1), ApplyUpdate: scalar(2), OverwriteWithEMA: scalar(3)}
		newT, newS := optimizers.Apply(b, c.opt, hp, trainable, grads, l.state)
		trained := make([]*layers.Weight, len(c.trainable))
		for k, i := range c.trainable {
			trained[k] = m.weights[i]
		}
		constrain(b, trained, newT)
		out := append([]backend.Value{st}, newT...)
		out = append(out, assigned...)
		out = append(out, newS...)
		return out, nil
	}
}

func (m *Model) evalFunc(c *compiled, weighted bool) backend.Func {
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		l := c.evalInputs(m, in, weighted)
		ctx := m.forwardContext(b, l.params, false)
		preds := m.call(ctx, l.xs)
		_, stats := lossAndStats(b, c.heads, l.ys, preds, l.sws, append(ctx.Losses(), m.weightPenalties(b, m.trainableWeights(), ctx.Weight)...))
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
func lossAndStats(b backend.Builder, heads []*head, ys, preds, sws, extra []backend.Value) (backend.Value, backend.Value) {
	var vals []backend.Value
	outputLosses := headLosses(b, heads, ys, preds, sws)
	total := weightedTotal(b, heads, outputLosses)
	for _, l := range extra { // layers' AddLoss terms
		total = b.Add(total, l)
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

// headLosses returns each output's loss (before its loss weight), for the
// outputs that have one.
func headLosses(b backend.Builder, heads []*head, ys, preds, sws []backend.Value) []backend.Value {
	var out []backend.Value
	for i, h := range heads {
		if h.loss == nil {
			continue
		}
		if sws != nil {
			out = append(out, losses.Reduce(b, h.loss.(losses.Weighted), ys[i], preds[i], sws[i]))
		} else {
			out = append(out, h.loss.Compute(b, ys[i], preds[i]))
		}
	}
	return out
}

// headsLoss returns the sum of each output's loss times its weight.
func headsLoss(b backend.Builder, heads []*head, ys, preds, sws []backend.Value) backend.Value {
	return weightedTotal(b, heads, headLosses(b, heads, ys, preds, sws))
}

// weightedTotal returns the sum of the outputs' losses (headLosses) times
// their weights.
func weightedTotal(b backend.Builder, heads []*head, outputLosses []backend.Value) backend.Value {
	var total backend.Value
	k := 0
	for _, h := range heads {
		if h.loss == nil {
			continue
		}
		l := outputLosses[k]
		k++
		if h.weight != 1 {
			l = b.Mul(l, b.Scalar(h.weight))
		}
		if total == nil {
			total = l
		} else {
			total = b.Add(total, l)
		}
	}
	return total
}

// hasLoss reports whether any output has a compiled loss.
func hasLoss(heads []*head) bool {
	for _, h := range heads {
		if h.loss != nil {
			return true
		}
	}
	return false
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
func (m *Model) compileStep(bind *binding, c *compiled, key exeKey, d hostData) (backend.Executable, error) {
	specs := m.stepSpecs(c, key.kind, d, key.weighted, false)
	var fn backend.Func
	switch {
	case key.kind == trainStep && c.opts.TrainStep != nil:
		fn = m.customTrainFunc(c, d, key.weighted, false)
	case key.kind == trainStep:
		fn = m.trainFunc(c, key.weighted)
	case key.kind == evalStep && c.opts.TestStep != nil:
		var layout []stat
		fn = m.customTestFunc(c, d, key.weighted, &layout)
	case key.kind == evalStep:
		fn = m.evalFunc(c, key.weighted)
	default:
		fn = m.predictFunc()
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

// stepSpecs returns the specs of the inputs of the step of kind for batch
// d, in stepInputs's order. discover leaves out the optimizers' state,
// which does not exist before a custom step was first traced.
func (m *Model) stepSpecs(c *compiled, kind exeKind, d hostData, weighted, discover bool) []backend.Spec {
	var specs []backend.Spec
	for _, w := range m.weights {
		specs = append(specs, backend.Spec{Shape: w.Shape, DType: backend.Float32})
	}
	if kind == trainStep {
		if !discover {
			for _, s := range c.optSpecs {
				specs = append(specs, backend.Spec{Shape: s.Shape, DType: backend.Float32})
			}
		}
		specs = append(specs, backend.Spec{Shape: c.hyperShape(), DType: backend.Float32})
	}
	// The x arrays' dtypes follow the model's inputs (resolveData), so the
	// batch size and the kind key one executable.
	for _, a := range d.x {
		specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: a.dtype()})
	}
	if kind != predictStep {
		for _, a := range d.y {
			specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: backend.Float32})
		}
		if weighted {
			for _, a := range d.sw {
				specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: backend.Float32})
			}
		}
	}
	return specs
}
