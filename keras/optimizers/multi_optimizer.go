package optimizers

import (
	"fmt"
	"regexp"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// PathOptimizer is one entry of a MultiOptimizer's map (Keras's
// OptimizerMap): the optimizer of the variables whose path (Keras's
// variable.path, "encoder/dense/kernel") is Path, or, when none is, that
// Path matches whole as a regular expression ("encoder/.*").
type PathOptimizer struct {
	Path      string
	Optimizer Optimizer
}

// MultiOptimizer updates each variable with the optimizer its path
// selects, like keras.optimizers.MultiOptimizer over an OptimizerMap:
// an entry of ByPath whose Path is the variable's path, else the one
// entry whose Path matches it whole as a regular expression (two
// matching is an error, as in Keras), else Default. Each optimizer keeps
// its own learning rate, schedule and state, and is applied in every
// training step to its variables (an optimizer no variable selects is
// never applied, as in Keras).
//
//	&optimizers.MultiOptimizer{Default: &optimizers.SGD{LearningRate: 0.05},
//		ByPath: []optimizers.PathOptimizer{{Path: "encoder/.*", Optimizer: &optimizers.Adam{}}}}
//
// Keras's MultiOptimizer has no learning rate of its own: a callback
// that sets the learning rate (ReduceLROnPlateau, LearningRateScheduler)
// cannot be used with it, in Keras too. Its file layout is Keras's: its
// iteration count and learning rate (0), then each optimizer's variables
// (ByPath's, in order, then Default's), so Keras continues its training.
// A LossScaleOptimizer or a MultiOptimizer cannot be one of its
// optimizers, nor, in kerasgo, wrap it.
type MultiOptimizer struct {
	Default Optimizer
	ByPath  []PathOptimizer
}

// Name returns "multi_optimizer".
func (*MultiOptimizer) Name() string { return "multi_optimizer" }

// State is empty: the training step applies each of o's optimizers to
// its variables, with its own state (Optimizers, Select).
func (*MultiOptimizer) State([]backend.Shape) []StateSpec { return nil }

// Update fails the step: a MultiOptimizer is not applied itself, the
// training step applies its optimizers (Select).
func (o *MultiOptimizer) Update(b backend.Builder, _ Hyperparameters, params, _, _ []backend.Value) ([]backend.Value, []backend.Value) {
	b.Fail(nil, fmt.Errorf("optimizer multi_optimizer: it is applied by the training step, which gives each of its optimizers its variables"))
	return params, nil
}

// Optimizers returns o's optimizers in Keras's order (its
// _inner_optimizers): ByPath's, each once, then Default.
func (o *MultiOptimizer) Optimizers() []Optimizer {
	var out []Optimizer
	add := func(x Optimizer) {
		for _, have := range out {
			if have == x {
				return
			}
		}
		out = append(out, x)
	}
	for _, e := range o.ByPath {
		add(e.Optimizer)
	}
	if o.Default != nil {
		add(o.Default)
	}
	return out
}

// Select returns, for each path, the index in Optimizers of the
// optimizer that updates the variable at that path.
func (o *MultiOptimizer) Select(paths []string) ([]int, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	inner := o.Optimizers()
	index := func(x Optimizer) int {
		for i, have := range inner {
			if have == x {
				return i
			}
		}
		return -1
	}
	patterns := make([]*regexp.Regexp, len(o.ByPath))
	for i, e := range o.ByPath {
		patterns[i] = regexp.MustCompile("^(?:" + e.Path + ")$") // check compiled it
	}
	out := make([]int, len(paths))
	for k, p := range paths {
		var chosen Optimizer
		for _, e := range o.ByPath {
			if e.Path == p {
				chosen = e.Optimizer
				break
			}
		}
		if chosen == nil {
			var matched []string
			for i, e := range o.ByPath {
				if patterns[i].MatchString(p) {
					matched = append(matched, e.Path)
					chosen = e.Optimizer
				}
			}
			if len(matched) > 1 {
				return nil, fmt.Errorf("optimizer multi_optimizer: the variable %q matches %d entries, %q: make the patterns exclusive (Keras: \"Multiple optimizers assigned to variable\")", p, len(matched), matched)
			}
		}
		if chosen == nil {
			chosen = o.Default
		}
		out[k] = index(chosen)
	}
	return out, nil
}

// check reports a MultiOptimizer Keras refuses, or one kerasgo cannot
// apply: no Default, a nil or wrapping optimizer, a repeated Path or one
// that is not a regular expression.
func (o *MultiOptimizer) check() error {
	if o.Default == nil {
		return fmt.Errorf("optimizer multi_optimizer: Default is nil: give the optimizer of the variables no path selects (Keras's default_optimizer)")
	}
	seen := map[string]bool{}
	for i, e := range append([]PathOptimizer{{Path: "", Optimizer: o.Default}}, o.ByPath...) {
		what := "Default"
		if i > 0 {
			what = fmt.Sprintf("ByPath[%d] (%q)", i-1, e.Path)
			if seen[e.Path] {
				return fmt.Errorf("optimizer multi_optimizer: %s repeats a path: give each path once", what)
			}
			seen[e.Path] = true
			if _, err := regexp.Compile("^(?:" + e.Path + ")$"); err != nil {
				return fmt.Errorf("optimizer multi_optimizer: %s is not a regular expression: %v", what, err)
			}
		}
		switch e.Optimizer.(type) {
		case nil:
			return fmt.Errorf("optimizer multi_optimizer: %s has no optimizer", what)
		case *LossScaleOptimizer:
			return fmt.Errorf("optimizer multi_optimizer: %s is a LossScaleOptimizer, which cannot be inside a MultiOptimizer (as in Keras)", what)
		case *MultiOptimizer:
			return fmt.Errorf("optimizer multi_optimizer: %s is a MultiOptimizer, which cannot be inside another (as in Keras)", what)
		}
		if err := Check(e.Optimizer); err != nil {
			return err
		}
	}
	return nil
}

// AsMulti returns o as a MultiOptimizer, if it is one.
func AsMulti(o Optimizer) (*MultiOptimizer, bool) {
	m, ok := o.(*MultiOptimizer)
	return m, ok
}

// serializeMulti is Keras's MultiOptimizer config: its OptimizerMap
// (the default optimizer, and the map from path to optimizer, in
// ByPath's order).
func serializeMulti(m *MultiOptimizer) (serialization.Object, error) {
	if err := m.check(); err != nil {
		return serialization.Object{}, err
	}
	def, err := Serialize(m.Default)
	if err != nil {
		return serialization.Object{}, err
	}
	var byPath []serialization.KeyValue
	for _, e := range m.ByPath {
		o, err := Serialize(e.Optimizer)
		if err != nil {
			return serialization.Object{}, err
		}
		byPath = append(byPath, serialization.KeyValue{Key: e.Path, Value: o})
	}
	optimizerMap := serialization.NewObject("keras.optimizers", "OptimizerMap", serialization.Config{"default_optimizer": def, "optimizer_map": serialization.NewOrdered(byPath)})
	return serialization.NewObject("keras.optimizers", "MultiOptimizer", serialization.Config{
		"optimizer_map": optimizerMap, "loss_scale_factor": nil, "name": m.Name()}), nil
}

// deserializeMulti reads Keras's MultiOptimizer config.
func deserializeMulti(r *serialization.Reader) (Optimizer, error) {
	r.ExpectNull("loss_scale_factor")
	raw, _ := r.Value("optimizer_map")
	class, cfg, ok := serialization.ClassOrName(raw)
	if !ok || class != "OptimizerMap" || cfg == nil {
		return nil, fmt.Errorf("optimizer MultiOptimizer: optimizer_map %v: kerasgo reads an OptimizerMap (a Python function choosing the optimizers cannot be saved, in Keras either)", raw)
	}
	mr := serialization.NewReader("optimizer MultiOptimizer's OptimizerMap", cfg)
	rawDefault, _ := mr.Value("default_optimizer")
	def, err := Deserialize(rawDefault)
	if err != nil {
		return nil, fmt.Errorf("optimizer MultiOptimizer: default_optimizer: %w", err)
	}
	m := &MultiOptimizer{Default: def}
	rawMap, _ := mr.Value("optimizer_map")
	entries, err := serialization.Entries(rawMap)
	if err != nil {
		return nil, fmt.Errorf("optimizer MultiOptimizer: optimizer_map: %w", err)
	}
	for _, e := range entries {
		o, err := Deserialize(e.Value)
		if err != nil {
			return nil, fmt.Errorf("optimizer MultiOptimizer: optimizer_map[%q]: %w", e.Key, err)
		}
		m.ByPath = append(m.ByPath, PathOptimizer{Path: e.Key, Optimizer: o})
	}
	if err := mr.Finish(); err != nil {
		return nil, err
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return m, m.check()
}
