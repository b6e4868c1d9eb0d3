package keras

import (
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/internal/varsync"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// binding is a model's state on one engine: the engine, one tensor per
// weight of the model (the variables' values, uploaded from their host
// copies) and per variable of the models outside it that its custom steps
// call (adopt: a Distiller's teacher, an EMA copy), the optimizer's state
// when the model is compiled for training, and the compiled steps.
//
// Its tensors are published as immutable snapshots (stateSet): a run
// acquires the current one and releases it when done, a training step
// publishes a new one, and the tensors a snapshot replaced are freed once
// no run uses an older snapshot. So any number of goroutines may run on a
// binding while Fit trains it, each seeing the state between two steps,
// and no lock is held while an engine computes (callbacks may read the
// model from inside a run). The one exception is a built-in training step
// that finds no one else holding a snapshot: it donates the tensors it
// replaces to the engine, which writes the new values into them (as
// PyTorch updates in place), so only one copy of the weights and the
// optimizer's slots is alive; a run that starts meanwhile waits for that
// step to publish (acquireStep).
//
// A binding is the holder (internal/varsync) of the variables its Fit trains:
// their newest values stay on the engine and are copied to the host when
// read.
type binding struct {
	be   backend.Backend
	exes exeCache

	mu      sync.Mutex
	changed *sync.Cond // signalled when a snapshot is released
	current *stateSet
	retired []*stateSet // replaced snapshots, oldest first, not yet freed
	users   int         // runs and readers holding a snapshot
	closed  bool
	// donating is the snapshot a training step runs on while it gives
	// its updated tensors' memory to the engine (backend.Donor): until
	// the step publishes its result (or gives up, endDonation) no one
	// else may acquire a snapshot, adopt variables or publish.
	donating *stateSet
	// noDonor is set once a training step found that the engine's steps
	// cannot donate (backend.Donates): later steps do not ask.
	noDonor atomic.Bool
}

// varTable lists the variables a binding holds tensors for, by index:
// the model's weights first, in their order, then the variables of outside
// models its steps call, in the order they were adopted. A table is never
// changed: adopt makes a longer one for the next snapshot.
type varTable struct {
	weights []*layers.Weight
	index   map[*layers.Weight]int
}

// stateSet is one snapshot of a binding's tensors.
type stateSet struct {
	vars *varTable
	// params holds one tensor per variable of vars; nil before the first
	// upload.
	params []backend.Tensor
	// versions holds the variable version each params tensor has.
	versions []uint64
	// optState is the optimizer's state; iterations counts the training
	// steps taken with it (Keras's optimizer.iterations).
	optState   []backend.Tensor
	iterations int64

	refs     int
	replaced []backend.Tensor // tensors of this set the next one does not have
}

// maxRetired bounds the snapshots a slow reader can keep alive: a
// training step waits before publishing another (a few steps' worth of
// weights, never an unbounded number).
const maxRetired = 4

var errBindingClosed = errors.New("the model's engine was closed (the model was compiled again)")

func newBinding(be backend.Backend, weights []*layers.Weight) *binding {
	vars := &varTable{weights: slices.Clone(weights), index: make(map[*layers.Weight]int, len(weights))}
	for i, w := range weights {
		vars.index[w] = i
	}
	b := &binding{be: be}
	b.changed = sync.NewCond(&b.mu)
	b.current = &stateSet{vars: vars, params: make([]backend.Tensor, len(weights)), versions: make([]uint64, len(weights))}
	b.exes.init()
	return b
}

// acquire returns the current snapshot, which stays valid until release.
func (b *binding) acquire() (*stateSet, error) {
	s, _, err := b.acquireStep(false)
	return s, err
}

// acquireStep is acquire for a training step, which may donate the
// snapshot's tensors to the engine (donate) when no one else holds a
// snapshot: then the step has the binding to itself until it publishes
// (publishDonated) or gives up (endDonation). A reader that comes
// meanwhile waits for the step; one already holding a snapshot makes the
// step keep the old tensors instead.
func (b *binding) acquireStep(donate bool) (s *stateSet, donating bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitDonation()
	if b.closed {
		return nil, false, errBindingClosed
	}
	donating = donate && b.users == 0
	if donating {
		b.collect()
		b.donating = b.current
	}
	b.current.refs++
	b.users++
	return b.current, donating, nil
}

// waitDonation waits, with b.mu held, until no training step has the
// binding to itself.
func (b *binding) waitDonation() {
	for b.donating != nil && !b.closed {
		b.changed.Wait()
	}
}

// endDonation ends the donation of s, if it is the one in progress,
// without publishing: the step failed, or its loss was not finite (then
// the engine wrote into none of s's tensors).
func (b *binding) endDonation(s *stateSet) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.donating == s {
		b.donating = nil
		b.changed.Broadcast()
	}
}

func (b *binding) release(s *stateSet) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.refs--
	b.users--
	b.collect()
	b.changed.Broadcast()
}

// collect frees the tensors of retired snapshots that no run uses, oldest
// first (a newer retired set may share tensors with an older one still in
// use, so it waits for it). Call with b.mu held.
func (b *binding) collect() {
	for len(b.retired) > 0 && b.retired[0].refs == 0 {
		b.be.Release(b.retired[0].replaced...)
		b.retired = b.retired[1:]
	}
}

// stateChange is what a training step or an upload changes.
type stateChange struct {
	params   map[int]backend.Tensor // new tensors by weight index
	versions map[int]uint64         // their variable versions
	// optState replaces the optimizer state when not nil; steps adds to
	// the iteration count, and iterations, when not nil, sets it.
	optState   []backend.Tensor
	steps      int64
	iterations *int64
}

// publish makes a new snapshot from the current one with ch applied. The
// variables a training step changed are marked held (hold): their newest
// values are this binding's.
func (b *binding) publish(ch stateChange, hold []int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitDonation()
	return b.publishLocked(ch, hold)
}

// publishDonated is publish for a training step that ran on s, acquired
// for donation (acquireStep): when it still holds the donation, its new
// snapshot replaces the one whose tensors it wrote into and the others
// may go on; when it gave it up (endDonation), it is publish.
func (b *binding) publishDonated(s *stateSet, ch stateChange, hold []int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.donating == s {
		b.donating = nil
		b.changed.Broadcast()
	}
	b.waitDonation()
	return b.publishLocked(ch, hold)
}

// publishLocked is publish with b.mu held.
func (b *binding) publishLocked(ch stateChange, hold []int) error {
	for len(b.retired) >= maxRetired && !b.closed {
		b.changed.Wait()
	}
	if b.closed {
		b.be.Release(values(ch.params)...)
		b.be.Release(ch.optState...)
		return errBindingClosed
	}
	old := b.current
	next := &stateSet{
		vars:       old.vars,
		params:     append([]backend.Tensor(nil), old.params...),
		versions:   append([]uint64(nil), old.versions...),
		optState:   old.optState,
		iterations: old.iterations + ch.steps,
	}
	if ch.iterations != nil {
		next.iterations = *ch.iterations
	}
	for i, t := range ch.params {
		if old.params[i] != nil {
			old.replaced = append(old.replaced, old.params[i])
		}
		next.params[i] = t
		next.versions[i] = ch.versions[i]
	}
	for _, i := range hold {
		// Under b.mu, so that a reader of this binding sees the version
		// and the tensor change together (weightOps.Hold takes only the
		// variable's own lock).
		next.versions[i] = weightOps.Hold(next.vars.weights[i], b)
	}
	if ch.optState != nil {
		old.replaced = append(old.replaced, old.optState...)
		next.optState = ch.optState
	}
	b.current = next
	b.retired = append(b.retired, old)
	b.collect()
	return nil
}

// holdForTraining makes the binding the holder of the variables at
// indices idx (the ones a training step updates) before the first step,
// once refresh has uploaded them: their host copies are dropped then, not
// after the first step, whose peak memory would otherwise hold them, the
// uploaded tensors and the new ones at once. When that frees at least
// freeOSThreshold bytes of host copies, their memory goes back to the
// operating system at once (runtime/debug.FreeOSMemory: a collection),
// so that the engine's allocator can use it.
func (b *binding) holdForTraining(idx []int) error {
	b.mu.Lock()
	cur := b.current
	var hold []int
	bytes := 0
	for _, i := range idx {
		w := cur.vars.weights[i]
		if h, v := weightOps.HolderAndVersion(w); h != varHolder(b) && v == cur.versions[i] && cur.params[i] != nil {
			hold = append(hold, i)
			bytes += 4 * w.Shape.Size()
		}
	}
	b.mu.Unlock()
	if len(hold) == 0 {
		return nil
	}
	if err := b.publish(stateChange{params: map[int]backend.Tensor{}}, hold); err != nil {
		return err
	}
	if bytes >= freeOSThreshold {
		debug.FreeOSMemory()
	}
	return nil
}

// freeOSThreshold is the size of the host copies holdForTraining drops
// above which it returns their memory to the operating system at once.
const freeOSThreshold = 64 << 20

func values(m map[int]backend.Tensor) []backend.Tensor {
	out := make([]backend.Tensor, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	return out
}

// HeldValues copies the current values of ws to the host, all from one
// snapshot (varsync.Holder).
func (b *binding) HeldValues(ws []*layers.Weight) ([][]float32, error) {
	s, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer b.release(s)
	out := make([][]float32, len(ws))
	for k, w := range ws {
		i, ok := s.vars.index[w]
		if !ok || s.params[i] == nil {
			return nil, fmt.Errorf("variable %s is not on this engine", w.Name)
		}
		if out[k], err = b.be.ToFloat32(s.params[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// adopt adds ws, the variables of models outside the binding's own that
// its steps call, to the variables it holds tensors for (those it has are
// skipped); refresh uploads their values. Snapshots taken before keep
// their shorter table.
func (b *binding) adopt(ws []*layers.Weight) error {
	if len(ws) == 0 { // the common case, once per step: no lock
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitDonation()
	if b.closed {
		return errBindingClosed
	}
	old := b.current
	var add []*layers.Weight
	for _, w := range ws {
		if _, ok := old.vars.index[w]; !ok && !slices.Contains(add, w) {
			add = append(add, w)
		}
	}
	if len(add) == 0 {
		return nil
	}
	vars := &varTable{weights: append(slices.Clip(old.vars.weights), add...), index: maps.Clone(old.vars.index)}
	for i := len(old.vars.weights); i < len(vars.weights); i++ {
		vars.index[vars.weights[i]] = i
	}
	b.current = &stateSet{
		vars:       vars,
		params:     append(slices.Clip(old.params), make([]backend.Tensor, len(add))...),
		versions:   append(slices.Clip(old.versions), make([]uint64, len(add))...),
		optState:   old.optState,
		iterations: old.iterations,
	}
	b.retired = append(b.retired, old) // frees nothing: the new set keeps its tensors
	b.collect()
	return nil
}

// refresh uploads the variables whose host value changed since this
// binding last had them (initialising those with no value), so that the
// next run computes with every variable's current value: another model
// may have trained a shared layer, or SetWeights assigned it.
func (b *binding) refresh() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errBindingClosed
	}
	cur := b.current
	var stale []*layers.Weight
	var at []int
	for i, w := range cur.vars.weights {
		if cur.params[i] == nil || w.Version() != cur.versions[i] {
			stale = append(stale, w)
			at = append(at, i)
		}
	}
	b.mu.Unlock()
	if len(stale) == 0 {
		return nil
	}
	// Read and upload without holding b.mu: a value may live on another
	// engine, whose binding takes its own lock.
	vals, vers, err := readVariables(stale)
	if err != nil {
		return err
	}
	ch := stateChange{params: map[int]backend.Tensor{}, versions: map[int]uint64{}}
	for k, i := range at {
		t, err := b.be.FromFloat32(vals[k], stale[k].Shape)
		if err != nil {
			b.be.Release(values(ch.params)...)
			return err
		}
		ch.params[i], ch.versions[i] = t, vers[k]
	}
	return b.publish(ch, nil)
}

// weightOps are the variables' engine plumbing (internal/varsync), which
// package layers keeps from layer authors.
var weightOps = varsync.Get[*layers.Weight]()

// varHolder is an engine holding variables' newest values: a binding.
type varHolder = varsync.Holder[*layers.Weight]

// readVariables returns the current values of ws and their versions,
// reading those held by one engine from one snapshot of it.
func readVariables(ws []*layers.Weight) ([][]float32, []uint64, error) {
	vals := make([][]float32, len(ws))
	vers := make([]uint64, len(ws))
	groups := map[varHolder][]int{}
	var order []varHolder
	for k, w := range ws {
		h, v := weightOps.HolderAndVersion(w)
		if h == nil || v == 0 {
			var err error
			if vals[k], vers[k], err = weightOps.Current(w); err != nil {
				return nil, nil, err
			}
			continue
		}
		if _, ok := groups[h]; !ok {
			order = append(order, h)
		}
		groups[h] = append(groups[h], k)
		vers[k] = v
	}
	for _, h := range order {
		idx := groups[h]
		held := make([]*layers.Weight, len(idx))
		for j, k := range idx {
			held[j] = ws[k]
		}
		vs, err := h.HeldValues(held)
		if errors.Is(err, errBindingClosed) {
			// The holder let go of them (it wrote them back first): read
			// them one by one from where they are now.
			for _, k := range idx {
				if vals[k], vers[k], err = weightOps.Current(ws[k]); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for j, k := range idx {
			vals[k] = vs[j]
			weightOps.Settle(ws[k], vs[j], vers[k], h)
		}
	}
	return vals, vers, nil
}

// close writes the values this binding holds back to their variables,
// then frees its tensors and compiled steps once the runs in flight are
// done, and closes the engine.
func (b *binding) close() error {
	var firstErr error
	b.mu.Lock()
	vars := b.current.vars
	b.mu.Unlock()
	for _, w := range vars.weights {
		if err := weightOps.WriteBack(w, b); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("writing variable %s back before leaving the engine: %w", w.Name, err)
		}
	}
	b.mu.Lock()
	b.closed = true
	b.changed.Broadcast()
	for b.users > 0 {
		b.changed.Wait()
	}
	b.be.Release(b.current.params...)
	b.be.Release(b.current.optState...)
	for _, s := range b.retired {
		b.be.Release(s.replaced...)
	}
	b.retired = nil
	b.mu.Unlock()
	b.exes.close()
	if err := b.be.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	return firstErr
}

// maxCompiledSteps bounds the compiled steps a binding keeps, by key
// (kind, batch shapes): a model over inputs of any length compiles a
// step for each length it is given, and a stream of distinct lengths
// must not keep them all. Beyond it the least recently used idle steps
// are freed, and compiled again if their shapes come back. A model of
// fixed shapes uses a handful (train, evaluate and predict, each for the
// full and the last batch).
const maxCompiledSteps = 64

// exeCache holds the compiled steps of a binding by key, several per key
// when several goroutines run the same kind of step at once (an engine's
// Executable runs one call at a time), and at most maxCompiledSteps keys
// of idle ones.
type exeCache struct {
	mu     sync.Mutex
	idle   map[exeKey][]backend.Executable
	all    []backend.Executable
	closed bool
	// lastUse is each idle key's last return (put), by a clock that
	// counts returns: the least recently used key is evicted first.
	lastUse map[exeKey]uint64
	clock   uint64
	evicted int // keys evicted so far (for tests and measurements)
}

func (c *exeCache) init() {
	c.idle = map[exeKey][]backend.Executable{}
	c.lastUse = map[exeKey]uint64{}
}

// get returns an idle executable for key, or compiles one.
func (c *exeCache) get(key exeKey, compile func() (backend.Executable, error)) (backend.Executable, error) {
	c.mu.Lock()
	if n := len(c.idle[key]); n > 0 {
		e := c.idle[key][n-1]
		c.idle[key] = c.idle[key][:n-1]
		c.mu.Unlock()
		return e, nil
	}
	c.mu.Unlock()
	compiled, err := compile()
	if err != nil {
		return nil, err
	}
	e := &cachedExe{compiled} // comparable, for evict
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		e.Close()
		return nil, errBindingClosed
	}
	c.all = append(c.all, e)
	return e, nil
}

// put returns e to the cache after a run, and frees the least recently
// used keys' idle steps beyond maxCompiledSteps keys.
func (c *exeCache) put(key exeKey, e backend.Executable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return // close freed it
	}
	c.idle[key] = append(c.idle[key], e)
	c.clock++
	c.lastUse[key] = c.clock
	for len(c.idle) > maxCompiledSteps {
		oldest, first := exeKey{}, true
		for k, t := range c.lastUse {
			if first || t < c.lastUse[oldest] {
				oldest, first = k, false
			}
		}
		c.evict(oldest)
	}
}

// cachedExe is a compiled step the cache holds: a pointer, which evict
// can find in all (an engine's Executable need not be comparable).
type cachedExe struct{ backend.Executable }

// evict frees key's idle steps (c.mu held).
func (c *exeCache) evict(key exeKey) {
	for _, e := range c.idle[key] {
		e.Close()
		if i := slices.Index(c.all, e); i >= 0 {
			c.all = slices.Delete(c.all, i, i+1)
		}
	}
	delete(c.idle, key)
	delete(c.lastUse, key)
	c.evicted++
}

// keys returns the keys of the compiled steps (for tests).
func (c *exeCache) keys() []exeKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []exeKey
	for k, es := range c.idle {
		for range es {
			out = append(out, k)
		}
	}
	return out
}

func (c *exeCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, e := range c.all {
		e.Close()
	}
	c.all, c.idle = nil, nil
}
