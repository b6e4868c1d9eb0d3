package layers

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/internal/varsync"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
)

// Weight is a variable of a layer, Keras's keras.Variable: its name,
// shape, initializer, whether training updates it, and its value. The
// layer that created it (AddWeight) owns it; every model that contains the
// layer uses this one variable, so training any of them changes it and
// all of them see the change.
//
// The value is created once, by the first of: a model's Compile (seeded by
// CompileOptions.Seed), a prediction, GetWeights, Value or Assign. It is
// never initialised again: compiling another model that contains the
// layer keeps it.
//
// While a model trains the variable, its newest value lives on that
// model's engine, and the host copy is brought up to date when someone
// reads it (Value, a model's GetWeights, Save, another model's step), as
// Keras's JAX backend writes its step state back to the variables
// (jax_state_sync). A Weight is safe for concurrent use.
type Weight struct {
	Name        string // "kernel", "bias"
	Shape       backend.Shape
	Initializer initializers.Initializer
	// Trainable is false for a weight training never updates (set it to
	// freeze one weight; SetTrainable(false) freezes a whole layer).
	Trainable bool
	// Regularizer, when set, adds its penalty of the weight's value to the
	// loss of every training and evaluation step (Keras's
	// variable.regularizer, from a layer's kernel_regularizer, ...).
	Regularizer regularizers.Regularizer
	// Constraint, when set, projects the weight's value after every
	// optimizer update (Keras's variable.constraint).
	Constraint constraints.Constraint
	// Integer is set for a variable Keras keeps as an integer, such as
	// Normalization's count: its value holds whole numbers, and a .keras
	// file stores it as an integer dataset. In an engine it is a float.
	Integer bool

	mu      sync.Mutex
	value   []float32 // the host copy; nil before initialisation
	version uint64    // changes with every new value; 0: no value yet
	holder  holder    // holds a newer value than the host copy, or nil
}

// holder is where a variable's newest value lives while a model trains
// it: the model's engine (internal/varsync).
type holder = varsync.Holder[*Weight]

// The engine plumbing of variables lives behind internal/varsync, so that
// a layer author sees Value, Assign and Initialized.
func init() {
	varsync.Register(varsync.Ops[*Weight]{
		Current: (*Weight).current, Settle: (*Weight).settle, Hold: (*Weight).hold,
		WriteBack: (*Weight).writeBack, HolderAndVersion: (*Weight).holderAndVersion,
	})
}

// Initialized reports whether the variable has a value.
func (w *Weight) Initialized() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version != 0
}

// Version returns a number that changes whenever the variable gets a new
// value (0 before it has one). Models compare it with the version their
// engine holds to know when to upload the value again.
func (w *Weight) Version() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version
}

// Value returns a copy of the variable's current value, initialising it
// with a fresh random seed if it has none yet (Keras's seed=None).
func (w *Weight) Value() ([]float32, error) {
	v, _, err := w.current()
	if err != nil {
		return nil, err
	}
	return append([]float32(nil), v...), nil
}

// current returns the variable's current value and its version, without
// a copy: the caller must not modify the slice. Models use it to upload
// the value to an engine.
func (w *Weight) current() ([]float32, uint64, error) {
	w.mu.Lock()
	if w.version == 0 {
		w.initLocked(rand.Uint64(), rand.Uint64())
	}
	h, version, value := w.holder, w.version, w.value
	w.mu.Unlock()
	if h == nil {
		return value, version, nil
	}
	// The newest value is on an engine: read it there, without holding
	// w.mu (the engine takes its own lock; a training step may publish a
	// new version meanwhile).
	vs, err := h.HeldValues([]*Weight{w})
	if err != nil {
		return nil, 0, fmt.Errorf("variable %s: reading its value from the engine: %w", w.Name, err)
	}
	w.settle(vs[0], version, h)
	return vs[0], version, nil
}

// settle records value, read from holder h while the variable was at
// version, as the host copy, unless the variable has moved on since.
func (w *Weight) settle(value []float32, version uint64, h holder) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.version == version && w.holder == h {
		w.value, w.holder = value, nil
	}
}

// Assign sets the variable's value (a copy of v), like Keras's
// variable.assign. Every model containing the layer uses it from its next
// step on.
func (w *Weight) Assign(v []float32) error {
	if len(v) != w.Shape.Size() {
		return fmt.Errorf("variable %s has shape %v (%d values); got %d values", w.Name, w.Shape, w.Shape.Size(), len(v))
	}
	c := append([]float32(nil), v...)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.value, w.holder = c, nil
	w.version = nextVersion()
	return nil
}

// hold records that h (a model's engine) now holds the variable's newest
// value, and returns the new version. The host copy, stale from now on, is
// dropped (a big model's weights would stay in memory twice, as PyTorch's
// do not), and read back from h when the value is next read.
func (w *Weight) hold(h holder) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holder, w.value = h, nil
	w.version = nextVersion()
	return w.version
}

// writeBack makes the host copy current again if h holds the newest
// value, reading it from h; a model calls it before it leaves its engine.
func (w *Weight) writeBack(h holder) error {
	w.mu.Lock()
	held := w.holder == h
	version := w.version
	w.mu.Unlock()
	if !held {
		return nil
	}
	vs, err := h.HeldValues([]*Weight{w})
	if err != nil {
		return err
	}
	w.settle(vs[0], version, h)
	return nil
}

// holderAndVersion returns who holds the newest value (nil: the host
// copy is current) and the version, so that a model can read several
// variables held by one engine at once.
func (w *Weight) holderAndVersion() (holder, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.holder, w.version
}

// Initialize gives the variable its first value from its initializer,
// drawn from a generator seeded by (seed, stream); it does nothing if the
// variable has a value. It reports whether it initialised.
func (w *Weight) Initialize(seed, stream uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.version != 0 {
		return false
	}
	w.initLocked(seed, stream)
	return true
}

func (w *Weight) initLocked(seed, stream uint64) {
	rng := rand.New(rand.NewPCG(seed, stream))
	w.value = w.Initializer.Init(w.Shape, rng)
	w.version = nextVersion()
}

// regularize attaches a regularizer and a constraint (either may be nil)
// to w, checking that they fit its shape; key names the setting in
// errors ("kernel").
func regularize(w *Weight, key string, r regularizers.Regularizer, c constraints.Constraint) error {
	if w == nil {
		return nil
	}
	if err := regularizers.CheckShape(r, w.Shape); err != nil {
		return fmt.Errorf("%s_regularizer: %w", key, err)
	}
	if c != nil {
		if err := c.CheckShape(w.Shape); err != nil {
			return fmt.Errorf("%s_constraint: %w", key, err)
		}
	}
	w.Regularizer, w.Constraint = r, c
	return nil
}

var versions atomic.Uint64

// nextVersion returns a number no variable has had, so that a version
// identifies one value across every variable and model of the process.
func nextVersion() uint64 { return versions.Add(1) }
