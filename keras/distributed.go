package keras

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/distribution"
)

// Data-parallel training (CompileOptions.Distribution), written once for
// every engine. Fit gives each process its shard of every epoch's order
// (distribution.Shard); the training step sums, in one allreduce, the
// gradients, the new values of assigned state (BatchNormalization's moving
// statistics) and the step's statistics, and averages what must be
// averaged, so every process applies the same update and logs the global
// loss and metrics. Evaluate and Predict split the rows in blocks and
// combine the results once at the end.

// dist returns the model's data-parallel job, or nil when it trains alone
// (no job, or a job of one process).
func (m *Model) dist() *distribution.DataParallel {
	m.mu.Lock()
	c := m.compiled
	m.mu.Unlock()
	if c == nil {
		return nil
	}
	dp := c.opts.Distribution
	if dp == nil || dp.WorldSize() < 2 {
		return nil
	}
	return dp
}

// chief reports whether this process prints and writes files: always,
// unless it is a rank other than 0 of a job.
func (m *Model) chief() bool {
	dp := m.dist()
	return dp == nil || dp.IsChief()
}

// averageAcrossProcesses sums grads, assigned and stats over the job in
// one allreduce (one bucket, as PyTorch's DDP coalesces its gradients),
// then divides the gradients, the assigned state and the stats' batch
// means (losses) by the number of processes; the stats' sums (metrics'
// per-sample sums and totals) stay sums. Every process's batch has the
// same size (distribution.Shard), so the mean of the batch means is the
// mean over the global batch.
func averageAcrossProcesses(b backend.Builder, dp *distribution.DataParallel, layout []stat, grads, assigned []backend.Value, st backend.Value) ([]backend.Value, []backend.Value, backend.Value) {
	all := append(append(append([]backend.Value(nil), grads...), assigned...), st)
	summed := b.AllReduceSum(pack(b, all), dp)
	w := float64(dp.WorldSize())
	parts := make([]backend.Value, len(all))
	at := 0
	for i, v := range all {
		n := v.Shape().Size()
		parts[i] = b.Reshape(b.Slice(summed, []int{at}, []int{n}), v.Shape())
		at += n
	}
	inv := b.Scalar(1 / w)
	for i := range len(grads) + len(assigned) {
		parts[i] = b.Mul(parts[i], inv)
	}
	scale := make([]float64, st.Shape().Size())
	for i := range scale {
		scale[i] = 1
	}
	for _, s := range layout {
		if s.batchMean {
			for j := s.offset; j < s.offset+s.size; j++ {
				scale[j] = 1 / w
			}
		}
	}
	gs := parts[:len(grads)]
	as := parts[len(grads) : len(grads)+len(assigned)]
	return gs, as, b.Mul(parts[len(parts)-1], b.Constant(scale, st.Shape()))
}

// averageValues averages vs over the job's processes in one allreduce
// (a custom step's gradients, Step.Gradients).
func averageValues(b backend.Builder, dp *distribution.DataParallel, vs []backend.Value) []backend.Value {
	summed := b.AllReduceSum(pack(b, vs), dp)
	inv := b.Scalar(1 / float64(dp.WorldSize()))
	out := make([]backend.Value, len(vs))
	at := 0
	for i, v := range vs {
		n := v.Shape().Size()
		out[i] = b.Mul(b.Reshape(b.Slice(summed, []int{at}, []int{n}), v.Shape()), inv)
		at += n
	}
	return out
}

// syncFromChief makes every process start Fit from rank 0's weights,
// optimizer state and step count (DDP's broadcast at construction; here
// at every Fit, so that weights loaded or restored on rank 0 alone reach
// every process).
func (m *Model) syncFromChief(c *compiled, dp *distribution.DataParallel) error {
	bind := c.bind
	// Rank 0's variables may have been assigned since its last step (a
	// BackupAndRestore restore, SetWeights): upload them before they are
	// broadcast, or the broadcast would hold older values over them.
	if err := bind.refresh(); err != nil {
		return err
	}
	s, err := bind.acquire()
	if err != nil {
		return err
	}
	broadcast := func(ts []backend.Tensor, shape func(i int) backend.Shape) ([]backend.Tensor, error) {
		out := make([]backend.Tensor, 0, len(ts))
		for i, t := range ts {
			v, err := c.be.ToFloat32(t)
			if err == nil {
				err = dp.BroadcastFloat32(v, 0)
			}
			var nt backend.Tensor
			if err == nil {
				nt, err = c.be.FromFloat32(v, shape(i))
			}
			if err != nil {
				c.be.Release(out...)
				return nil, err
			}
			out = append(out, nt)
		}
		return out, nil
	}
	params, err := broadcast(s.params, func(i int) backend.Shape { return s.vars.weights[i].Shape })
	if err != nil {
		bind.release(s)
		return fmt.Errorf("copying rank 0's weights to every process: %w", err)
	}
	state, err := broadcast(s.optState, func(i int) backend.Shape { return c.optSpecs[i].Shape })
	it := []float64{float64(s.iterations)}
	bind.release(s)
	if err != nil {
		c.be.Release(params...)
		return fmt.Errorf("copying rank 0's optimizer state to every process: %w", err)
	}
	if err := dp.BroadcastFloat64(it, 0); err != nil {
		c.be.Release(params...)
		c.be.Release(state...)
		return err
	}
	iterations := int64(it[0])
	ch := stateChange{params: map[int]backend.Tensor{}, optState: state, iterations: &iterations}
	hold := make([]int, len(params))
	for i, t := range params {
		ch.params[i], hold[i] = t, i
	}
	return bind.publish(ch, hold)
}

// fingerprint hashes what makes two models train as one: each weight's
// name, shape and trainability, in order (FNV-1a, 64 bits; every weight
// is float32 on the host).
func (m *Model) fingerprint() uint64 {
	h := fnv.New64a()
	for _, w := range m.weights {
		fmt.Fprintf(h, "%s%v%v;", w.Name, w.Shape, w.Trainable)
	}
	return h.Sum64()
}

// agreeOnTheJob checks, before any collective whose size depends on them,
// that every process has rank 0's model (its weights' names, shapes and
// dtypes), the same number of samples and the same batch size, so that
// they take the same steps; a difference fails every process with one
// message, instead of a wrong model (a process with fewer samples leaving
// early) or an abort deep in Gloo (buffers of different sizes). The
// collectives here have fixed sizes, so they cannot fail that way.
func (m *Model) agreeOnTheJob(dp *distribution.DataParallel, train trainingEpochs) error {
	samples, unit, batch := train.size()
	fp := m.fingerprint()
	mine := []float64{float64(fp >> 32), float64(fp & 0xffffffff), float64(samples), float64(batch)}
	chief := append([]float64(nil), mine...)
	if err := dp.BroadcastFloat64(chief, 0); err != nil {
		return fmt.Errorf("comparing the processes' models and data: %w", err)
	}
	differs := []float64{0, 0, 0}
	if mine[0] != chief[0] || mine[1] != chief[1] {
		differs[0] = 1
	}
	if mine[2] != chief[2] {
		differs[1] = 1
	}
	if mine[3] != chief[3] {
		differs[2] = 1
	}
	if err := dp.AllReduceFloat64(differs); err != nil {
		return fmt.Errorf("comparing the processes' models and data: %w", err)
	}
	var problems []string
	if differs[0] > 0 {
		problems = append(problems, fmt.Sprintf("%d of the %d processes have a model other than rank 0's (their weights differ in number, name or shape; this process's model is %s)", int(differs[0]), dp.WorldSize(), map[bool]string{true: "rank 0's", false: "another"}[mine[0] == chief[0] && mine[1] == chief[1]]))
	}
	if differs[1] > 0 {
		problems = append(problems, fmt.Sprintf("%d processes have a number of %s other than rank 0's %d (this process: %d): every process must be given the whole dataset, which Fit shards", int(differs[1]), unit, int(chief[2]), samples))
	}
	if differs[2] > 0 {
		problems = append(problems, fmt.Sprintf("%d processes have a batch size other than rank 0's %d (this process: %d)", int(differs[2]), int(chief[3]), batch))
	}
	if len(problems) > 0 {
		return fmt.Errorf("the processes of the data-parallel job differ, so they cannot train as one: %s", strings.Join(problems, "; "))
	}
	return nil
}

// agreedSeed returns rank 0's seed, so that every process shuffles the
// same way (each would otherwise draw its own when no seed is given).
func agreedSeed(dp *distribution.DataParallel, seed int64) (int64, error) {
	// Two halves, each exact in a float64.
	v := []float64{float64(uint64(seed) >> 32), float64(uint64(seed) & 0xffffffff)}
	if err := dp.BroadcastFloat64(v, 0); err != nil {
		return 0, fmt.Errorf("agreeing on the shuffle seed: %w", err)
	}
	return int64(uint64(v[0])<<32 | uint64(v[1])), nil
}

// reduce sums the accumulated statistics and sample counts of every
// process, so that the logs are those of the whole data.
func (a *means) reduce(dp *distribution.DataParallel) error {
	buf := append(append([]float64(nil), a.totals...), float64(a.samples))
	if err := dp.AllReduceFloat64(buf); err != nil {
		return err
	}
	copy(a.totals, buf)
	a.samples = int(buf[len(buf)-1])
	return nil
}

// gatherRows puts each process's predictions for its block of rows into
// the whole arrays, on every process: each fills its block of zeros and
// the allreduce adds them up.
func gatherRows(dp *distribution.DataParallel, res []Array, n int) ([]Array, error) {
	from, _ := distribution.Block(n, dp.Rank(), dp.WorldSize())
	out := make([]Array, len(res))
	for i, r := range res {
		shape := append([]int(nil), r.Shape...)
		shape[0] = n
		row := backend.Shape(shape[1:]).Size()
		full := make([]float32, n*row)
		copy(full[from*row:], r.Data)
		if err := dp.AllReduceFloat32(full); err != nil {
			return nil, fmt.Errorf("gathering the predictions of every process: %w", err)
		}
		out[i] = Array{Shape: shape, Data: full}
	}
	return out, nil
}

// agreeOnResumePoint makes every process resume where rank 0 does (a
// BackupAndRestore backup may exist on rank 0's machine only).
func (m *Model) agreeOnResumePoint(dp *distribution.DataParallel) error {
	v := []float64{float64(m.resume.epoch), float64(m.resume.batch)}
	if err := dp.BroadcastFloat64(v, 0); err != nil {
		return fmt.Errorf("agreeing on where training resumes: %w", err)
	}
	if int(v[0]) != m.resume.epoch || int(v[1]) != m.resume.batch {
		m.resume = resumePoint{epoch: int(v[0]), batch: int(v[1])}
	}
	return nil
}
