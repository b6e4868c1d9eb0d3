package keras

import (
	"fmt"
	"math"
	"slices"

	"github.com/kerasgo/kerasgo/internal/settings"
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
	specs   []metrics.Metric // metrics as given (Named ones resolved in ready)
	metrics []metrics.Metric // resolved once the output shape is known
}

// resolveHeads turns CompileOptions' Loss, LossWeights and Metrics into
// one head per output, following Keras 3's rules: a single value applies
// to every output; a list is by position and a map by output name.
func resolveHeads(opts CompileOptions, names []string) ([]*head, error) {
	heads := make([]*head, len(names))
	for i, n := range names {
		heads[i] = &head{name: n, weight: 1}
	}
	// Losses. None at all is allowed, as Keras's compile() without a
	// loss: for a model that predicts, runs Functions or adds its own
	// losses (AddLoss); Fit and Evaluate then say a loss is needed.
	perLoss, err := opts.Loss.resolve("Loss", "losses", names, nil)
	if err != nil {
		return nil, err
	}
	trained := false
	for i, h := range heads {
		if settings.IsNil(perLoss[i]) && perLoss[i] != nil {
			return nil, fmt.Errorf("the loss of output %q is a nil %T: give a loss made first, or nil to leave the output untrained", h.name, perLoss[i])
		}
		h.loss = perLoss[i]
		trained = trained || h.loss != nil
	}
	if !trained && opts.TrainStep == nil && opts.Loss.Given() {
		return nil, fmt.Errorf("no output has a loss: give a loss for at least one output")
	}
	// Loss weights: Keras takes one number only for a model with one
	// output.
	if opts.LossWeights.form == oneForAll && len(names) != 1 {
		return nil, fmt.Errorf("LossWeights is one number but the model has %d outputs %v: give keras.ByPosition(...) or keras.ByName(...)", len(names), names)
	}
	perWeight, err := opts.LossWeights.resolve("LossWeights", "weights", names, 1)
	if err != nil {
		return nil, err
	}
	for i, h := range heads {
		if w := perWeight[i]; math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("LossWeights gives output %q the weight %v: give finite numbers", h.name, w)
		}
		h.weight = perWeight[i]
	}
	// Metrics: with several outputs, Keras wants them per output.
	if opts.Metrics.form == oneForAll && len(names) > 1 && len(opts.Metrics.all) > 0 {
		return nil, fmt.Errorf("for a model with several outputs, Metrics must give one entry per output, as in Keras: got metrics for every output of the %d outputs %v; use keras.ByPosition with a []metrics.Metric per output, or keras.ByName", len(names), names)
	}
	perMetrics, err := opts.Metrics.resolve("Metrics", "entries", names, nil)
	if err != nil {
		return nil, err
	}
	for i, h := range heads {
		h.specs = slices.Clone(perMetrics[i])
		if err := h.checkMetrics(); err != nil {
			return nil, err
		}
	}
	return heads, nil
}

// checkMetrics checks the metrics' names (they are resolved in ready,
// when the output shape is known) and refuses nil ones.
func (h *head) checkMetrics() error {
	for i, mt := range h.specs {
		if settings.IsNil(mt) {
			return fmt.Errorf("metric %d of output %q is nil: give metrics made first, e.g. metrics.Named(\"accuracy\")", i, h.name)
		}
		if n, ok := mt.(metrics.Named); ok {
			if err := n.Check(); err != nil {
				return err
			}
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
		m, err := metrics.Resolve(mt, yTrue, yPred)
		if err != nil {
			return err
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
	// weighted is a per-sample metric: the step gives the sum of its
	// samples' values and of their weights (Step.sampleTotals), and the
	// value is their ratio.
	weighted bool
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
			s := stat{name: name, size: 2, weighted: true}
			if a, ok := mt.(metrics.Accumulator); ok {
				s.acc, s.size, s.weighted = a, a.Size(), false
			}
			add(s)
		}
	}
	return out
}
