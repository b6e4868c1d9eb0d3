package keras

import (
	"fmt"
	"slices"
	"sync"

	"github.com/kerasgo/kerasgo/internal/settings"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// CompileOptions configure training, like the arguments of Keras's
// model.compile.
type CompileOptions struct {
	// Optimizer updates the weights from their gradients, e.g.
	// &optimizers.Adam{} (Keras's "adam"; zero fields take Keras's
	// defaults) or &optimizers.SGD{LearningRate: 0.1}. nil is RMSprop
	// with Keras's defaults, as Keras's compile.
	Optimizer optimizers.Optimizer
	// Loss is what training minimises: keras.Loss("mse") by Keras name,
	// keras.LossOf(losses.Huber{}) for a loss value (losses.FromFunc for
	// a function), or, for a model with several outputs, one per output:
	// keras.ByPosition[losses.Loss](...) in the model's output order or
	// keras.ByName(map[string]losses.Loss{...}); an output without a loss
	// (nil) is not trained. A single loss applies to every output, as in
	// Keras. Required unless TrainStep computes its own.
	Loss PerOutput[losses.Loss]
	// LossWeights weighs each output's loss in the total that training
	// minimises (Keras's loss_weights): keras.ByPosition(1.0, 0.2) or
	// keras.ByName(map[string]float64{...}); ForAll gives every output
	// the same weight. Default 1 each; each must be finite.
	LossWeights PerOutput[float64]
	// Metrics are computed and logged besides the loss, per output:
	// keras.Metrics("accuracy") by Keras name, keras.MetricsOf(...) for
	// metric values (metrics.FromFunc for a function), both for every
	// output, or keras.ByPosition / keras.ByName with a []metrics.Metric
	// per output (Keras's list and dict forms; nil: none for that
	// output).
	Metrics PerOutput[[]metrics.Metric]
	// Backend selects the engine, e.g. "gorgonia" or "libtorch:cuda".
	// Empty means $KERASGO_BACKEND, then ~/.kerasgo/kerasgo.json, then
	// "gorgonia" (see package backend).
	Backend string
	// Seed makes initial weights and dropout masks reproducible; 0 (the
	// default, Keras's seed=None) draws a different seed each time.
	// Variables are initialised once, when they have no value yet:
	// compiling again (for example on another engine), or compiling a new
	// model that contains trained layers, keeps their values.
	Seed int64
	// Distribution trains the model data parallel with the other
	// processes of a job (see package distribution): nil trains in this
	// process alone.
	Distribution *distribution.DataParallel
	// TrainStep replaces the training step of Fit and TrainOnBatch
	// (Keras's overridden train_step; see StepFunc). With it, Loss is
	// optional (the step may compute its own), and Fit passes x (and y,
	// which may then be nil) to the step as given, without checking them
	// against the model's inputs.
	TrainStep StepFunc
	// TestStep replaces the evaluation step of Evaluate, TestOnBatch and
	// Fit's validation (Keras's test_step). Without it, evaluation runs
	// the built-in step, which needs a Loss.
	TestStep StepFunc
}

// compiled is what Compile attaches to a model: the engine, the
// optimizer, the losses and metrics, and once the model is built and
// ready, the model's state on the engine (bind).
type compiled struct {
	be    backend.Backend
	opts  CompileOptions
	opt   optimizers.Optimizer
	heads []*head // per output: loss, loss weight, metrics
	bind  *binding
	// trainable lists the indices of the weights the built-in step
	// trains, as they were when the optimizer state was made (Keras's
	// trainable_variables).
	trainable []int
	// The optimizers the training step applies, each to its weights
	// (step_plan.go), whose states, concatenated, are optSpecs: the
	// built-in step's when the model is ready, a custom step's once it
	// was planned; and the rest of the step's layout (trainPlan), planned
	// once per Compile at the first training step.
	slots    []*optSlot
	optSpecs []optimizers.StateSpec
	// paths are the model's weights' paths (Model.WeightPaths), which an
	// optimizer may depend on (optimizers.ForVariables).
	paths     map[*layers.Weight]string
	trainPlan *stepPlan
	// testMu guards testOutside: the variables of the models outside
	// this one that a custom test step calls, in the order it takes them,
	// learned by its first planning trace (testLayout; testPlanned).
	testMu      sync.Mutex
	testOutside []*layers.Weight
	testPlanned bool
	// lrMu guards the optimizers' learning rates, which SetLearningRate
	// may change while steps read them.
	lrMu sync.Mutex
}

type exeKind int

const (
	trainStep exeKind = iota
	evalStep
	predictStep
)

func (k exeKind) String() string {
	return [...]string{"training", "evaluation", "prediction"}[k]
}

type exeKey struct {
	kind     exeKind
	batch    int
	weighted bool // the step takes sample weights
	// shapes are the data's shapes for a custom step, whose data need
	// not match the model's inputs, and for a model with dimensions of
	// any length besides the batch ("" for the others).
	shapes string
}

// Compile binds the model to an engine with an optimizer, a loss and
// metrics. Names are checked here; an unknown one is an error that lists
// the known ones.
func (m *Model) Compile(opts CompileOptions) error {
	c := &compiled{opts: opts}
	c.opts.Seed = resolveSeed(opts.Seed)
	var err error
	c.opt = opts.Optimizer
	switch {
	case c.opt == nil:
		c.opt = &optimizers.RMSprop{} // Keras's default
	case settings.IsNil(c.opt):
		return fmt.Errorf("the optimizer is a nil %T: give one made first, e.g. &optimizers.Adam{}, or leave Optimizer out for RMSprop", c.opt)
	}
	optimizers.ResolveDefaults(c.opt)
	if err := optimizers.Check(c.opt); err != nil {
		return err
	}
	names := []string{""} // a Sequential model not built yet has one output
	if m.Built() {
		names = m.OutputNames()
	}
	if c.heads, err = resolveHeads(opts, names); err != nil {
		return err
	}
	be, err := backend.Open(opts.Backend)
	if err != nil {
		return err
	}
	c.be = be
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fitting {
		be.Close()
		return fmt.Errorf("model %q is training (Fit is running): Compile it after Fit returns", m.Name)
	}
	// The variables keep their values: the old engine writes back what it
	// holds before it is closed.
	if err := m.closeBindings(); err != nil {
		be.Close()
		return err
	}
	policy := DTypePolicy()
	for _, l := range append(slices.Clone(m.ordered), m.pending...) {
		layers.AdoptDTypePolicy(l, policy)
	}
	m.compiled = c
	if m.Built() {
		return m.ready()
	}
	return nil
}

// currentCompiled returns the model's compiled configuration, or nil.
func (m *Model) currentCompiled() *compiled {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.compiled
}

// Backend returns the engine the model is compiled on, or nil.
func (m *Model) Backend() backend.Backend {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.compiled == nil {
		return nil
	}
	return m.compiled.be
}

// Optimizer returns the optimizer the model was compiled with (Keras's
// model.optimizer), or nil before Compile. Changing its fields changes
// training from the next step on.
func (m *Model) Optimizer() optimizers.Optimizer {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.compiled == nil {
		return nil
	}
	return m.compiled.opt
}
