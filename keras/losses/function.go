package losses

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/kerasgo/kerasgo/internal/registry"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// Func is a loss written as a plain function, as Keras accepts any
// callable: it returns the per-sample loss (or already its mean); Compile
// averages it over the batch. Per-sample values are weighted by sample
// weights and by the mask the output carries, as Keras weighs them.
type Func func(b backend.Builder, yTrue, yPred backend.Value) backend.Value

// FromFunc wraps a plain function as a Loss named after the function
// ("myLoss"), as Keras names a callable by its __name__.
func FromFunc(f Func) Loss { return funcLoss{f: f, name: FuncName(f, "custom_loss")} }

// Register makes the loss function f known by name, as Keras's
// register_keras_serializable: keras.Loss(name) and Get give it, a model
// compiled with it saves the name, and LoadModel finds it again. Register
// once, in an init function; a built-in loss's name or a second
// registration is an error. Safe for concurrent use.
func Register(name string, f Func) error {
	if f == nil {
		return fmt.Errorf("losses.Register(%q): the function is nil", name)
	}
	return registered.Register("loss function", name, f, func(n string) bool { _, err := builtin(n); return err == nil })
}

// registered holds the loss functions given to Register.
var registered registry.Registry[Func]

type funcLoss struct {
	f    Func
	name string
}

func (l funcLoss) Name() string { return l.name }

func (l funcLoss) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(l.f(b, y, pred))
}

// Unreduced returns the function's values: with one per sample (or per
// sample and step), sample weights and the output's mask weigh them, as
// Keras's LossFunctionWrapper does; a function that returns the batch's
// loss itself cannot be weighted (ReduceMasked).
func (l funcLoss) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	return l.f(b, y, pred)
}

// CheckTargets accepts any targets with one row per sample: the function
// decides what it needs.
func (funcLoss) CheckTargets([]float32, backend.Shape, backend.Shape) error { return nil }

// FuncName returns a Go function's name without its package ("myLoss"),
// or def for an anonymous function.
func FuncName(f any, def string) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	name = name[strings.LastIndex(name, ".")+1:]
	if name == "" || strings.HasPrefix(name, "func") {
		return def
	}
	return name
}
