package layers

import (
	"fmt"
	"sort"
	"sync"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serializable is a layer that can be saved in Keras's config.json.
type Serializable interface {
	Layer
	// GetConfig returns the layer's own settings in Keras's schema, with
	// Keras's snake_case keys and values, like Keras's get_config. The
	// keys every layer has (name, trainable, dtype) are added by Config.
	GetConfig() (serialization.Config, error)
}

// Factory builds a layer from its saved settings, read through r (which
// has already read name, trainable and dtype). Read every setting through
// r: a setting left unread that is not a default makes loading fail, so
// that nothing is silently ignored.
type Factory func(r *serialization.Reader) (Layer, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
	builtin    = map[string]bool{"InputLayer": true} // Keras's own classes (mustRegister)
	// hostDTypes are the classes whose config's dtype is their output's
	// (Hashing's int64), which the layer sets itself.
	hostDTypes = map[string]bool{}
)

// Register makes a layer class loadable from a saved model, like Keras's
// register_keras_serializable. className is what the layer's ClassName
// returns and what config.json holds. Registering a class twice is an
// error.
func Register(className string, f Factory) error {
	if className == "" || f == nil {
		return fmt.Errorf("layers.Register needs a class name and a factory")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[className]; dup {
		return fmt.Errorf("a layer class %q is already registered", className)
	}
	registry[className] = f
	return nil
}

// mustRegister registers one of Keras's own layer classes.
func mustRegister(className string, f Factory) {
	if err := Register(className, f); err != nil {
		panic(err)
	}
	builtin[className] = true
}

// IsKerasClass reports whether a layer class is one of Keras's own (saved
// with module "keras.layers"), not a user's registered class.
func IsKerasClass(className string) bool {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return builtin[className]
}

// PythonClassName is the name of l's class in Keras's Python source,
// from which Keras derives default layer names and the layer's place in a
// weights file ("layers/<its snake_case>"): l's ClassName, but for a
// class Keras exports under another name (GroupedQueryAttention, which
// Keras exports and writes in configs as GroupQueryAttention).
func PythonClassName(l Layer) string {
	if p, ok := l.(interface{ pythonClassName() string }); ok {
		return p.pythonClassName()
	}
	return l.ClassName()
}

// Registered returns the registered layer classes, sorted.
func Registered() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for c := range registry {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// FromConfig builds a layer of a Keras class from its saved config. An
// unknown class, or a setting kerasgo does not implement, is an error
// naming the layer and the setting.
func FromConfig(className string, cfg serialization.Config) (Layer, error) {
	name, _ := cfg["name"].(string)
	what := fmt.Sprintf("layer %q (%s)", name, className)
	registryMu.RLock()
	f, ok := registry[className]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%s: kerasgo has no %s layer yet (it has %v; register your own with keras.RegisterLayer)", what, className, Registered())
	}
	r := serialization.NewReader(what, cfg)
	var policy string
	if hostDTypes[className] {
		r.Ignore("name", "dtype")
	} else {
		_, policy = r.CommonLayerKeys()
	}
	trainable := r.Bool("trainable", true)
	activity := readRegularizer(r, "activity_regularizer")
	l, err := f(r)
	if bf, ok := l.(boxFormatSetting); ok && err == nil {
		*bf.boxFormat() = readBoxFormat(r)
	}
	if err == nil {
		err = r.Finish()
	}
	if err != nil {
		return nil, err
	}
	if l.ClassName() != className {
		return nil, fmt.Errorf("%s: the factory registered for %s made a %s", what, className, l.ClassName())
	}
	l.Common().Name = name
	l.Common().SetTrainable(trainable)
	l.Common().policy, l.Common().policySet = policy, true
	if activity != nil {
		l.Common().ActivityRegularizer = activity
	}
	return l, nil
}

// Config returns a layer's full Keras config: name, trainable and dtype,
// then the layer's own settings.
func Config(l Layer) (serialization.Config, error) {
	s, ok := l.(Serializable)
	if !ok {
		return nil, fmt.Errorf("layer %s cannot be saved: give it a GetConfig method and register it with keras.RegisterLayer", Describe(l))
	}
	own, err := s.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", Describe(l), err)
	}
	cfg := serialization.Config{"name": l.Common().Name, "trainable": l.Common().Trainable(), "dtype": serialization.DTypePolicyNamed(l.Common().policy)}
	_, nameOnly := l.(interface{ nameOnlyConfig() }) // Keras's Pipeline takes no trainable or dtype
	if IsKerasOperation(l) || nameOnly {             // an operation's config has its name and settings only
		cfg = serialization.Config{"name": l.Common().Name}
	}
	for k, v := range own {
		cfg[k] = v
	}
	if act := l.Common().ActivityRegularizer; act != nil {
		if _, own := l.(interface{ ownsActivityRegularizer() }); !own {
			v, err := regularizers.Serialize(act)
			if err != nil {
				return nil, fmt.Errorf("layer %s: activity_regularizer: %w", Describe(l), err)
			}
			cfg["activity_regularizer"] = v
		}
	}
	if _, no := l.(interface{ withoutTrainableConfig() }); no {
		delete(cfg, "trainable")
	}
	if bf, ok := l.(boxFormatSetting); ok {
		cfg = withBoxFormat(cfg, *bf.boxFormat())
	}
	return cfg, nil
}

// IsKerasOperation reports whether l stands for a Keras operation
// (keras.ops) that Keras writes into a functional model's config as a
// layer (NotEqual, Any): module keras.src.ops.numpy, no trainable, dtype
// or build_config.
func IsKerasOperation(l Layer) bool {
	_, ok := l.(interface{ kerasOperation() })
	return ok
}

// ConstantOperands is implemented by Keras operations that take numbers
// besides tensors, as Keras writes them among a call's arguments
// (NotEqual(x, 0): the 0).
type ConstantOperands interface {
	// ConstantOperands gives the numbers, which follow the tensors.
	ConstantOperands() []any
	// SetConstantOperand reads the argument at position (counting the
	// tensors before it).
	SetConstantOperand(position int, v any) error
}

// HasBuildConfig reports whether Keras records a build_config for the
// layer in config.json: layers that create weights or depend on the input
// shape do; InputLayer, Dropout, Activation and pooling do not.
func HasBuildConfig(l Layer) bool {
	_, no := l.(interface{ withoutBuildConfig() })
	return !no && !IsKerasOperation(l)
}

// activationName is Keras's name for an activation setting ("" is linear).
func activationName(a string) string {
	if a == "" {
		return "linear"
	}
	return a
}

// readActivation reads an activation setting and checks kerasgo has it.
// initializerObject is the Keras form of a built-in initializer's name.
func initializerObject(name string) serialization.Object {
	o, err := initializers.Serialize(name, "")
	if err != nil {
		panic(err) // only called with built-in names
	}
	return o
}

func readActivation(r *serialization.Reader, key string) string {
	v, ok := r.Value(key)
	if !ok {
		return ""
	}
	name, _, isName := serialization.ClassOrName(v)
	if !isName {
		r.Fail(key, "cannot read activation %v", v)
		return ""
	}
	if _, err := activations.Get(name); err != nil {
		r.Fail(key, "%v", err)
	}
	if name == "linear" {
		return ""
	}
	return name
}

// readInitializer reads an initializer setting as kerasgo's name.
func readInitializer(r *serialization.Reader, key string) string {
	v, ok := r.Value(key)
	if !ok {
		return ""
	}
	name, err := initializers.Deserialize(v)
	if err != nil {
		r.Fail(key, "%v", err)
	}
	return name
}

// kernelAndBiasConfig writes the kernel's and bias's settings into cfg.
func kernelAndBiasConfig(cfg serialization.Config, kb kernelAndBias) error {
	k, err := initializers.Serialize(kb.kernelInit, "glorot_uniform")
	if err != nil {
		return err
	}
	b, err := initializers.Serialize(kb.biasInit, "zeros")
	if err != nil {
		return err
	}
	cfg["use_bias"] = !kb.noBias
	cfg["kernel_initializer"] = k
	cfg["bias_initializer"] = b
	return penaltiesConfig(cfg, map[string]regularizers.Regularizer{"kernel": kb.kernelReg, "bias": kb.biasReg},
		map[string]constraints.Constraint{"kernel": kb.kernelCon, "bias": kb.biasCon})
}

// readKernelAndBias reads what kernelAndBiasConfig writes.
func readKernelAndBias(r *serialization.Reader) kernelAndBias {
	return kernelAndBias{
		noBias: !r.Bool("use_bias", true), kernelInit: readInitializer(r, "kernel_initializer"), biasInit: readInitializer(r, "bias_initializer"),
		kernelReg: readRegularizer(r, "kernel_regularizer"), biasReg: readRegularizer(r, "bias_regularizer"),
		kernelCon: readConstraint(r, "kernel_constraint"), biasCon: readConstraint(r, "bias_constraint"),
	}
}

// penaltiesConfig writes "<weight>_regularizer" and "<weight>_constraint"
// for each weight named in regs and cons (null for none), as Keras's
// layers do.
func penaltiesConfig(cfg serialization.Config, regs map[string]regularizers.Regularizer, cons map[string]constraints.Constraint) error {
	for key, reg := range regs {
		v, err := regularizers.Serialize(reg)
		if err != nil {
			return fmt.Errorf("%s_regularizer: %w", key, err)
		}
		cfg[key+"_regularizer"] = v
	}
	for key, con := range cons {
		v, err := constraints.Serialize(con)
		if err != nil {
			return fmt.Errorf("%s_constraint: %w", key, err)
		}
		cfg[key+"_constraint"] = v
	}
	return nil
}

// readRegularizer reads a regularizer setting (null: none).
func readRegularizer(r *serialization.Reader, key string) regularizers.Regularizer {
	v, ok := r.Value(key)
	if !ok {
		return nil
	}
	reg, err := regularizers.Deserialize(v)
	if err != nil {
		r.Fail(key, "%v", err)
	}
	return reg
}

// readConstraint reads a constraint setting (null: none).
func readConstraint(r *serialization.Reader, key string) constraints.Constraint {
	v, ok := r.Value(key)
	if !ok {
		return nil
	}
	c, err := constraints.Deserialize(v)
	if err != nil {
		r.Fail(key, "%v", err)
	}
	return c
}

// CallKwargs is implemented by layers that keep Keras call arguments as
// settings (MultiHeadAttention's use_causal_mask): a model's config
// writes CallKwargs into each of the layer's nodes, as Keras records the
// call, and loading hands each node's keyword argument to SetCallKwarg,
// which reports whether it knew it.
type CallKwargs interface {
	CallKwargs() map[string]any
	SetCallKwarg(key string, v any) bool
}

// PositionalInputs is implemented by layers that Keras calls with their
// inputs as separate arguments (mha(query, value)), not one list
// (Add([a, b])); a model's config records them that way. It returns the
// names Keras's build gives their shapes, in order (query_shape,
// value_shape, key_shape), under which the build_config records them.
type PositionalInputs interface {
	PositionalInputs() []string
}

// Object returns l serialized as Keras nests a layer in another's config
// (a wrapper's "layer", an RNN's "cell"): its class and Config.
func Object(l Layer) (serialization.Object, error) {
	c, err := Config(l)
	if err != nil {
		return serialization.Object{}, err
	}
	return serialization.NewObject("keras.layers", PythonClassName(l), c), nil
}

// FromObject builds the layer of a nested layer's serialized form, what
// naming it in errors ("the wrapped layer").
func FromObject(v any, what string) (Layer, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok || cfg == nil {
		return nil, fmt.Errorf("cannot read %s %v: want the layer's {class_name, config}", what, describeValue(v))
	}
	return FromConfig(class, cfg)
}

// describeValue shows a config value in an error, briefly.
func describeValue(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
