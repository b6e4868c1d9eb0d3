package keras

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
)

// head is what Compile attaches to one output of the model: its loss
// (nil: the output is not trained, as Keras's loss=None for it), the
// loss's weight in the total (Keras's loss_weights), and its metrics.
// This is Keras's CompileLoss and CompileMetrics, flattened per output.
type head struct {
	name    string // the output layer's name
	loss    losses.Loss
	weight  float64
	specs   []any            // metrics as given (names resolved in ready)
	metrics []metrics.Metric // resolved once the output shape is known
}

// resolveHeads turns CompileOptions' Loss, LossWeights, Metrics and
// OutputMetrics into one head per output, following Keras 3's rules: a
// single loss applies to every output; a list is by position and a map by
// output name; with several outputs, Metrics must have one entry per
// output.
func resolveHeads(opts CompileOptions, names []string) ([]*head, error) {
	heads := make([]*head, len(names))
	for i, n := range names {
		heads[i] = &head{name: n, weight: 1}
	}
	// Losses.
	lossSpec := lossesGiven(opts.Loss)
	if lossSpec.form == notGiven && opts.TrainStep == nil {
		return nil, fmt.Errorf("Compile needs a Loss, e.g. \"sparse_categorical_crossentropy\" (or a TrainStep that computes its own)")
	}
	perLoss, err := lossSpec.resolve("Loss", "losses", names, nil)
	if err != nil {
		return nil, err
	}
	trained := false
	for i, h := range heads {
		if err := h.setLoss(perLoss[i]); err != nil {
			return nil, err
		}
		trained = trained || h.loss != nil
	}
	if !trained && opts.TrainStep == nil {
		return nil, fmt.Errorf("no output has a loss: give a loss for at least one output")
	}
	// Loss weights.
	weightSpec, err := lossWeightsGiven(opts.LossWeights, names)
	if err != nil {
		return nil, err
	}
	perWeight, err := weightSpec.resolve("LossWeights", "weights", names, 1)
	if err != nil {
		return nil, err
	}
	for i, h := range heads {
		h.weight = perWeight[i]
	}
	// Metrics: by position (Metrics) and by name (OutputMetrics), both
	// added to the output's list.
	if len(names) > 1 && len(opts.Metrics) > 0 && len(opts.Metrics) != len(names) {
		return nil, fmt.Errorf("for a model with several outputs, Metrics given as a list must have one entry per output (a metric, a []any of metrics, or nil), as in Keras: got %d entries for %d outputs %v; or use OutputMetrics by output name", len(opts.Metrics), len(names), names)
	}
	for _, spec := range []perOutput[[]any]{metricsGiven(opts.Metrics, len(names)), {form: byName, named: opts.OutputMetrics}} {
		per, err := spec.resolve("OutputMetrics", "entries", names, nil)
		if err != nil {
			return nil, err
		}
		for i, h := range heads {
			h.specs = append(h.specs, per[i]...)
		}
	}
	for _, h := range heads {
		if err := h.checkMetrics(); err != nil {
			return nil, err
		}
	}
	return heads, nil
}

// lossesGiven reads CompileOptions.Loss in Keras's forms: one loss for
// every output, a []any by position, a map[string]any by output name.
func lossesGiven(v any) perOutput[any] {
	switch l := v.(type) {
	case nil:
		return perOutput[any]{}
	case []any:
		return perOutput[any]{form: byPosition, list: l}
	case map[string]any:
		return perOutput[any]{form: byName, named: l}
	}
	return perOutput[any]{form: oneForAll, all: v}
}

// metricsGiven reads CompileOptions.Metrics: for a model with one output,
// its metrics; with several, one entry per output (a metric, a []any of
// metrics, or nil), as Keras's list form.
func metricsGiven(ms []any, outputs int) perOutput[[]any] {
	if outputs == 1 || len(ms) == 0 {
		return perOutput[[]any]{form: oneForAll, all: ms}
	}
	list := make([][]any, len(ms))
	for i, e := range ms {
		switch v := e.(type) {
		case nil:
		case []any:
			list[i] = v
		default:
			list[i] = []any{v}
		}
	}
	return perOutput[[]any]{form: byPosition, list: list}
}

// lossWeightsGiven reads CompileOptions.LossWeights: a float64 (a model
// with one output), a []float64 by position, a map[string]float64 by
// output name.
func lossWeightsGiven(v any, names []string) (perOutput[float64], error) {
	if err := checkLossWeightsFinite(v); err != nil {
		return perOutput[float64]{}, err
	}
	switch w := v.(type) {
	case nil:
		return perOutput[float64]{}, nil
	case float64:
		if len(names) != 1 {
			return perOutput[float64]{}, fmt.Errorf("LossWeights is one number but the model has %d outputs %v: give a []float64 or a map[string]float64", len(names), names)
		}
		return perOutput[float64]{form: oneForAll, all: w}, nil
	case []float64:
		return perOutput[float64]{form: byPosition, list: w}, nil
	case map[string]float64:
		return perOutput[float64]{form: byName, named: w}, nil
	}
	return perOutput[float64]{}, fmt.Errorf("LossWeights is a %T: give a float64 (one output), a []float64 or a map[string]float64 by output name", v)
}

// checkLossWeightsFinite refuses a NaN or infinite loss weight, naming
// it: it would make every step's loss NaN, blamed on the data.
func checkLossWeightsFinite(v any) error {
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	switch w := v.(type) {
	case float64:
		if bad(w) {
			return fmt.Errorf("LossWeights is %v: give a finite number", w)
		}
	case []float64:
		for i, f := range w {
			if bad(f) {
				return fmt.Errorf("LossWeights[%d] is %v: give finite numbers", i, f)
			}
		}
	case map[string]float64:
		for _, name := range slices.Sorted(maps.Keys(w)) {
			if bad(w[name]) {
				return fmt.Errorf("LossWeights[%q] is %v: give finite numbers", name, w[name])
			}
		}
	}
	return nil
}

// setLoss resolves one output's loss: a Keras name, a losses.Loss, a
// function, or nil (not trained).
func (h *head) setLoss(v any) error {
	var err error
	switch l := v.(type) {
	case nil:
		h.loss = nil
	case string:
		h.loss, err = losses.Get(l)
	case losses.Loss:
		h.loss = l
	case func(backend.Builder, backend.Value, backend.Value) backend.Value:
		h.loss = losses.FromFunc(l)
	case losses.Func:
		h.loss = losses.FromFunc(l)
	default:
		err = fmt.Errorf("the loss is a %T: give a name such as \"mse\", a losses.Loss or a function", l)
	}
	return err
}

// checkMetrics checks the metrics' names (with a placeholder shape: they
// are resolved in ready, when the output shape is known) and wraps
// functions.
func (h *head) checkMetrics() error {
	for i, mt := range h.specs {
		switch v := mt.(type) {
		case string:
			if _, err := metrics.Get(v, backend.Shape{-1, 2}, backend.Shape{-1, 2}); err != nil {
				return err
			}
		case metrics.Metric:
		case func(backend.Builder, backend.Value, backend.Value) backend.Value:
			h.specs[i] = metrics.FromFunc(v)
		case metrics.Func:
			h.specs[i] = metrics.FromFunc(v)
		default:
			return fmt.Errorf("metric %d is a %T: give a name such as \"accuracy\", a metrics.Metric or a function", i, mt)
		}
	}
	return nil
}

// resolveMetrics turns the metric names into metrics for targets of shape
// yTrue and an output of shape yPred ("accuracy" depends on both, as in
// Keras). The first data seen decides, as Keras builds its metrics once.
func (h *head) resolveMetrics(yTrue, yPred backend.Shape) error {
	if h.metrics != nil {
		return nil
	}
	var out []metrics.Metric
	for _, mt := range h.specs {
		var m metrics.Metric
		switch v := mt.(type) {
		case string:
			r, err := metrics.Get(v, yTrue, yPred)
			if err != nil {
				return err
			}
			m = r
		case metrics.Metric:
			m = v
		}
		if f, ok := m.(interface {
			ForOutput(backend.Shape) metrics.Metric
		}); ok {
			m = f.ForOutput(yPred)
		}
		if err := metrics.Check(m, yPred); err != nil {
			return fmt.Errorf("metric %s: %w", m.Name(), err)
		}
		out = append(out, m)
	}
	h.metrics = append([]metrics.Metric{}, out...)
	return nil
}

// stat is one entry of a step's logs: its name, where its values sit in
// the step's statistics vector, and how the epoch's value is made from
// their running totals.
type stat struct {
	name   string
	offset int
	size   int
	// mean: the value is total/samples (losses are batch means, weighted
	// by the batch size; Sample metrics are per-sample sums); otherwise
	// acc.Result(totals).
	acc       metrics.Accumulator
	batchMean bool // a loss: the step gives its batch mean
}

// stats lays out a step's statistics vector: the total loss, each output's
// loss when more than one output has a loss (Keras's "<output>_loss"),
// then each output's metrics ("<output>_<metric>" with several outputs).
func stats(heads []*head) []stat {
	out := []stat{{name: "loss", size: 1, batchMean: true}}
	next := 1
	add := func(s stat) {
		s.offset = next
		next += s.size
		out = append(out, s)
	}
	var withLoss []*head
	for _, h := range heads {
		if h.loss != nil {
			withLoss = append(withLoss, h)
		}
	}
	if len(withLoss) > 1 {
		for _, h := range withLoss {
			add(stat{name: h.name + "_loss", size: 1, batchMean: true})
		}
	}
	for _, h := range heads {
		for _, mt := range h.metrics {
			name := mt.Name()
			if len(heads) > 1 {
				name = h.name + "_" + name
			}
			s := stat{name: name, size: 1}
			if a, ok := mt.(metrics.Accumulator); ok {
				s.acc, s.size = a, a.Size()
			}
			add(s)
		}
	}
	return out
}
