package keras

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/metrics"
)

// FitOptions configure training, like the arguments of Keras's model.fit.
type FitOptions struct {
	Epochs    int // default 1
	BatchSize int // default 32
	// Verbose is Keras's verbosity: 0 silent, 1 progress bar (updated in
	// place on a terminal, one line per epoch otherwise), 2 one line per
	// epoch.
	Verbose int
	// NoShuffle keeps the sample order; by default samples are shuffled
	// every epoch, reproducibly from Seed.
	NoShuffle bool
	Seed      uint64
	// ValidationSplit holds out this fraction of the samples (the last
	// ones, before shuffling, as Keras does) to validate on after each
	// epoch.
	ValidationSplit float64
	// ValidationData is validated on after each epoch; it overrides
	// ValidationSplit.
	ValidationData *Data
	// Callbacks are called as Keras calls them; a progress bar is added
	// when Verbose > 0.
	Callbacks []callbacks.Callback
	// Output receives the progress output; default os.Stdout.
	Output io.Writer
}

// Data pairs inputs with targets.
type Data struct {
	X, Y Array
}

// EvaluateOptions configure Evaluate and Predict.
type EvaluateOptions struct {
	BatchSize int // default 32
}

// History records the logs of every epoch, like Keras's History.
type History struct {
	Epochs []int                // 0, 1, 2, ...
	Logs   map[string][]float64 // "loss", "accuracy", "val_loss", ...
	order  []string
}

// Names returns the logged quantities in Keras's order.
func (h *History) Names() []string { return h.order }

func (h *History) add(epoch int, logs callbacks.Logs) {
	if h.Logs == nil {
		h.Logs = map[string][]float64{}
	}
	h.Epochs = append(h.Epochs, epoch)
	for _, l := range logs {
		if _, ok := h.Logs[l.Name]; !ok {
			h.order = append(h.order, l.Name)
		}
		h.Logs[l.Name] = append(h.Logs[l.Name], l.Value)
	}
}

// ErrNaNLoss is wrapped by the error Fit returns when the loss becomes NaN
// or infinite (Keras's TerminateOnNaN, always on).
var ErrNaNLoss = errors.New("loss is NaN")

// prepare builds the model from x if needed, checks x and y against the
// model and the loss, and readies the engine.
func (m *Model) prepare(x Array, y *Array, what string) error {
	if m.compiled == nil {
		return fmt.Errorf("model %q must be compiled before %s: call Compile", m.Name, what)
	}
	if err := x.check("x"); err != nil {
		return err
	}
	if !m.Built() {
		if err := m.Build(x.Shape[1:]...); err != nil {
			return err
		}
	}
	in := m.input.Shape()
	if len(x.Shape) != len(in) || !backend.Shape(x.Shape[1:]).Equal(in[1:]) {
		return fmt.Errorf("input 0 of layer %q is incompatible with the model: expected shape %v, received data of shape %v: reshape the data to %s",
			m.input.Layer().Common().Name, in, backend.Shape(x.Shape), in[1:].WithLeading("samples"))
	}
	if y != nil {
		if err := y.check("y"); err != nil {
			return err
		}
		if y.Samples() != x.Samples() {
			return fmt.Errorf("x has %d samples but y has %d: give one target per sample", x.Samples(), y.Samples())
		}
		if err := m.compiled.loss.CheckTargets(y.Data, backend.Shape(y.Shape), m.output.Shape()); err != nil {
			return fmt.Errorf("%s: %w", m.compiled.loss.Name(), err)
		}
	}
	return m.ready()
}

// Fit trains the model on (x, y), like Keras's model.fit. It stops with an
// error when ctx is cancelled or the loss becomes NaN, returning the history
// so far; the weights are then those of the last good step.
func (m *Model) Fit(ctx context.Context, x, y Array, opts FitOptions) (*History, error) {
	if opts.Epochs <= 0 {
		opts.Epochs = 1
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 32
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if err := m.prepare(x, &y, "Fit"); err != nil {
		return nil, err
	}
	train, val := Data{X: x, Y: y}, opts.ValidationData
	if val == nil && opts.ValidationSplit > 0 {
		if opts.ValidationSplit >= 1 {
			return nil, fmt.Errorf("ValidationSplit must be in [0, 1), got %v", opts.ValidationSplit)
		}
		at := int(float64(x.Samples()) * (1 - opts.ValidationSplit))
		if at == 0 || at == x.Samples() {
			return nil, fmt.Errorf("ValidationSplit %v of %d samples leaves no samples on one side", opts.ValidationSplit, x.Samples())
		}
		train = Data{X: x.rows(0, at), Y: y.rows(0, at)}
		val = &Data{X: x.rows(at, x.Samples()), Y: y.rows(at, y.Samples())}
	}
	if val != nil {
		if err := m.prepare(val.X, &val.Y, "validation"); err != nil {
			return nil, fmt.Errorf("validation data: %w", err)
		}
	}
	cbs := opts.Callbacks
	if opts.Verbose > 0 {
		cbs = append([]callbacks.Callback{callbacks.NewProgbar(opts.Output, opts.Verbose)}, cbs...)
	}
	n := train.X.Samples()
	steps := (n + opts.BatchSize - 1) / opts.BatchSize
	for _, cb := range cbs {
		cb.OnTrainBegin(callbacks.Params{Epochs: opts.Epochs, Steps: steps})
	}
	hist := &History{}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x73687566))
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	var last callbacks.Logs
	for epoch := 0; epoch < opts.Epochs; epoch++ {
		for _, cb := range cbs {
			cb.OnEpochBegin(epoch)
		}
		if !opts.NoShuffle {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		logs, err := m.trainEpoch(ctx, train, order, opts.BatchSize, epoch, cbs)
		if err != nil {
			return hist, err
		}
		if val != nil {
			vlogs, err := m.evaluate(ctx, *val, opts.BatchSize)
			if err != nil {
				return hist, fmt.Errorf("validating after epoch %d: %w", epoch+1, err)
			}
			for _, l := range vlogs {
				logs = append(logs, callbacks.Log{Name: "val_" + l.Name, Value: l.Value})
			}
		}
		for _, cb := range cbs {
			cb.OnEpochEnd(epoch, logs)
		}
		hist.add(epoch, logs)
		last = logs
	}
	for _, cb := range cbs {
		cb.OnTrainEnd(last)
	}
	return hist, nil
}

func (m *Model) trainEpoch(ctx context.Context, d Data, order []int, batch, epoch int, cbs []callbacks.Callback) (callbacks.Logs, error) {
	c := m.compiled
	lossMean := &metrics.Mean{}
	means := make([]metrics.Mean, len(c.metrics))
	var xbuf, ybuf []float32
	steps := (len(order) + batch - 1) / batch
	nP, nS := len(m.weights), len(c.optSpecs)
	var logs callbacks.Logs
	for step := 0; step < steps; step++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("training stopped at epoch %d, batch %d: %w", epoch+1, step+1, err)
		}
		idx := order[step*batch : min((step+1)*batch, len(order))]
		var xs, ys backend.Shape
		xbuf, xs = d.X.gather(idx, xbuf)
		ybuf, ys = d.Y.gather(idx, ybuf)
		exe, err := m.executable(trainStep, xs, ys)
		if err != nil {
			return nil, fmt.Errorf("compiling the training step for batch shape %v: %w", xs, err)
		}
		xt, err := c.be.FromFloat32(xbuf, xs)
		if err != nil {
			return nil, err
		}
		yt, err := c.be.FromFloat32(ybuf, ys)
		if err != nil {
			return nil, err
		}
		in := make([]backend.Tensor, 0, nP+nS+2)
		in = append(append(append(in, c.params...), c.optState...), xt, yt)
		out, err := exe.Run(in)
		c.be.Release(xt, yt)
		if err != nil {
			return nil, fmt.Errorf("training step at epoch %d, batch %d: %w", epoch+1, step+1, err)
		}
		loss, sums, err := m.scalars(out[:1+len(c.metrics)])
		c.be.Release(out[:1+len(c.metrics)]...)
		if err != nil {
			return nil, err
		}
		rest := out[1+len(c.metrics):]
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			c.be.Release(rest...)
			return nil, fmt.Errorf("%w (%v) at epoch %d, batch %d: training stopped (TerminateOnNaN) and the weights are those before this batch; lower the learning rate or check the data for NaN or huge values",
				ErrNaNLoss, loss, epoch+1, step+1)
		}
		c.be.Release(c.params...)
		c.be.Release(c.optState...)
		c.params, c.optState = rest[:nP], rest[nP:]
		c.iterations++
		lossMean.Update(loss*float64(len(idx)), len(idx))
		logs = callbacks.Logs{{Name: "loss", Value: lossMean.Result()}}
		for i := range means {
			means[i].Update(sums[i], len(idx))
			logs = append(logs, callbacks.Log{Name: c.metrics[i].Name(), Value: means[i].Result()})
		}
		for _, cb := range cbs {
			cb.OnBatchEnd(step, logs)
		}
	}
	return logs, nil
}

// scalars reads a step's loss and metric sums to the host.
func (m *Model) scalars(ts []backend.Tensor) (float64, []float64, error) {
	vals := make([]float64, len(ts))
	for i, t := range ts {
		v, err := m.compiled.be.ToFloat64(t)
		if err != nil {
			return 0, nil, err
		}
		vals[i] = v[0]
	}
	return vals[0], vals[1:], nil
}

// Evaluate returns the loss and metrics on (x, y), like Keras's
// model.evaluate.
func (m *Model) Evaluate(ctx context.Context, x, y Array, opts EvaluateOptions) (callbacks.Logs, error) {
	if err := m.prepare(x, &y, "Evaluate"); err != nil {
		return nil, err
	}
	return m.evaluate(ctx, Data{X: x, Y: y}, opts.BatchSize)
}

func (m *Model) evaluate(ctx context.Context, d Data, batch int) (callbacks.Logs, error) {
	if batch <= 0 {
		batch = 32
	}
	c := m.compiled
	lossMean := &metrics.Mean{}
	means := make([]metrics.Mean, len(c.metrics))
	n := d.X.Samples()
	for from := 0; from < n; from += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		to := min(from+batch, n)
		xb, yb := d.X.rows(from, to), d.Y.rows(from, to)
		exe, err := m.executable(evalStep, backend.Shape(xb.Shape), backend.Shape(yb.Shape))
		if err != nil {
			return nil, fmt.Errorf("compiling the evaluation step for batch shape %v: %w", xb.Shape, err)
		}
		xt, err := c.be.FromFloat32(xb.Data, xb.Shape)
		if err != nil {
			return nil, err
		}
		yt, err := c.be.FromFloat32(yb.Data, yb.Shape)
		if err != nil {
			return nil, err
		}
		out, err := exe.Run(append(append([]backend.Tensor{}, c.params...), xt, yt))
		c.be.Release(xt, yt)
		if err != nil {
			return nil, err
		}
		loss, sums, err := m.scalars(out)
		c.be.Release(out...)
		if err != nil {
			return nil, err
		}
		lossMean.Update(loss*float64(to-from), to-from)
		for i := range means {
			means[i].Update(sums[i], to-from)
		}
	}
	logs := callbacks.Logs{{Name: "loss", Value: lossMean.Result()}}
	for i := range means {
		logs = append(logs, callbacks.Log{Name: c.metrics[i].Name(), Value: means[i].Result()})
	}
	return logs, nil
}

// Predict returns the model's outputs for x, like Keras's model.predict.
func (m *Model) Predict(ctx context.Context, x Array, opts EvaluateOptions) (Array, error) {
	if err := m.prepare(x, nil, "Predict"); err != nil {
		return Array{}, err
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = 32
	}
	c := m.compiled
	n := x.Samples()
	outShape := m.output.Shape()
	outShape[0] = n
	res := Array{Shape: outShape, Data: make([]float32, 0, outShape.Size())}
	for from := 0; from < n; from += batch {
		if err := ctx.Err(); err != nil {
			return Array{}, err
		}
		xb := x.rows(from, min(from+batch, n))
		exe, err := m.executable(predictStep, backend.Shape(xb.Shape), nil)
		if err != nil {
			return Array{}, fmt.Errorf("compiling the prediction step for batch shape %v: %w", xb.Shape, err)
		}
		xt, err := c.be.FromFloat32(xb.Data, xb.Shape)
		if err != nil {
			return Array{}, err
		}
		out, err := exe.Run(append(append([]backend.Tensor{}, c.params...), xt))
		c.be.Release(xt)
		if err != nil {
			return Array{}, err
		}
		v, err := c.be.ToFloat32(out[0])
		c.be.Release(out...)
		if err != nil {
			return Array{}, err
		}
		res.Data = append(res.Data, v...)
	}
	return res, nil
}
