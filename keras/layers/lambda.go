package layers

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LambdaFunc is the Go function a Lambda layer computes: Keras's Lambda
// holds Python code, which kerasgo cannot run, so a model with Lambda
// layers loads when each function is registered in Go with
// RegisterLambda.
type LambdaFunc struct {
	// Call computes the output from the layer's inputs (one, or several
	// when the layer is applied to a list) with the context's builder.
	Call func(ctx *Context, inputs []backend.Value) backend.Value
	// OutputShape gives the output shape, batch first, from the input
	// shapes. Nil means the Keras config's output_shape when it has one,
	// else the first input's shape (an elementwise function).
	OutputShape func(inputs []backend.Shape) (backend.Shape, error)
}

var (
	lambdaMu    sync.RWMutex
	lambdaFuncs = map[string]LambdaFunc{}
)

// RegisterLambda makes Lambda layers that name function computable. A
// Lambda over a named Python function (def double(x): ...) is looked up
// by the function's name; one over a Python lambda, which has no name, by
// the layer's name ("square" for Lambda(lambda t: t**2, name="square")).
// Registering a name twice, or a function without Call, is an error.
func RegisterLambda(function string, f LambdaFunc) error {
	if function == "" || f.Call == nil {
		return fmt.Errorf("layers.RegisterLambda needs a name and a function with Call")
	}
	lambdaMu.Lock()
	defer lambdaMu.Unlock()
	if _, dup := lambdaFuncs[function]; dup {
		return fmt.Errorf("a Lambda function %q is already registered", function)
	}
	lambdaFuncs[function] = f
	return nil
}

func lambdaFunc(name string) (LambdaFunc, bool) {
	lambdaMu.RLock()
	defer lambdaMu.RUnlock()
	f, ok := lambdaFuncs[name]
	return f, ok
}

func lambdaNames() []string {
	lambdaMu.RLock()
	defer lambdaMu.RUnlock()
	return slices.Sorted(maps.Keys(lambdaFuncs))
}

// Lambda applies a function registered with RegisterLambda, like
// keras.layers.Lambda applies a Python function. Build one in Go with
// the registered name: &layers.Lambda{Function: "double_plus_one"}.
type Lambda struct {
	// Function is the registered name of the function.
	Function string
	// OutputShape is Keras's output_shape (without the batch), used when
	// the registered function has no OutputShape; nil means the input's.
	OutputShape []int
	Base
	saved any // the function object of the config the layer was read from
}

// ClassName returns "Lambda".
func (*Lambda) ClassName() string { return "Lambda" }

func (l *Lambda) function() (LambdaFunc, error) {
	f, ok := lambdaFunc(l.Function)
	if !ok {
		return f, fmt.Errorf("no Go function is registered as %q: register one with layers.RegisterLambda (registered: %v)", l.Function, lambdaNames())
	}
	return f, nil
}

// Build finds the registered function and computes the output shape.
func (l *Lambda) Build(inputs []backend.Shape) (backend.Shape, error) {
	f, err := l.function()
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("a Lambda layer needs an input")
	}
	switch {
	case f.OutputShape != nil:
		return f.OutputShape(inputs)
	case l.OutputShape != nil:
		return append(backend.Shape{inputs[0][0]}, l.OutputShape...), nil
	}
	return inputs[0], nil
}

// Call runs the registered function.
func (l *Lambda) Call(ctx *Context, in []backend.Value) backend.Value {
	f, err := l.function()
	if err != nil {
		panic(err) // Build checked it; the registry only grows
	}
	return f.Call(ctx, in)
}

// GetConfig returns Keras's config: the function as it was read, or, for
// a layer built in Go, as Keras writes a named Python function (Keras
// finds it by that name among its registered objects).
func (l *Lambda) GetConfig() (serialization.Config, error) {
	fn := l.saved
	if fn == nil {
		fn = map[string]any{"module": "builtins", "class_name": "function", "config": l.Function, "registered_name": "function"}
	}
	cfg := serialization.Config{"function": fn, "arguments": map[string]any{}}
	if l.OutputShape != nil {
		cfg["output_shape"] = l.OutputShape
	}
	return cfg, nil
}

// lambdaFunctionName is the registry name for a Keras Lambda's function:
// a named Python function's name, or the layer's name for a Python lambda.
func lambdaFunctionName(r *serialization.Reader, layerName string) string {
	v, ok := r.Value("function")
	obj, isObj := v.(map[string]any)
	if !ok || !isObj {
		r.Fail("function", "want Keras's serialized function, got %v", v)
		return ""
	}
	switch class, _ := obj["class_name"].(string); class {
	case "function":
		if name, ok := obj["config"].(string); ok && name != "" {
			return name
		}
	case "__lambda__":
		return layerName
	}
	r.Fail("function", "a function kerasgo cannot name (class %v): Keras writes a named function or a lambda", obj["class_name"])
	return ""
}

func init() {
	mustRegister("Lambda", func(r *serialization.Reader) (Layer, error) {
		name := r.String("name", "")
		l := &Lambda{Function: lambdaFunctionName(r, name), OutputShape: r.Ints("output_shape")}
		l.saved, _ = r.Value("function")
		if args, ok := r.Value("arguments"); ok {
			if m, isMap := args.(map[string]any); !isMap || len(m) > 0 {
				r.Fail("arguments", "%v: kerasgo's Lambda functions take no keyword arguments; write them into the registered Go function", args)
			}
		}
		r.Ignore("mask", "output_shape_type", "mask_type")
		if r.Has("mask") {
			r.Fail("mask", "a Lambda's mask function is Python code kerasgo cannot run")
		}
		if l.Function == "" {
			return l, nil
		}
		if _, ok := lambdaFunc(l.Function); !ok {
			how := fmt.Sprintf("the Python function %q", l.Function)
			if l.Function == name {
				how = "a Python lambda (looked up by the layer's name)"
			}
			r.Fail("function", "%s has no Go counterpart: register one with layers.RegisterLambda(%q, layers.LambdaFunc{Call: ...}) before loading (registered: %v)", how, l.Function, lambdaNames())
		}
		return l, nil
	})
}
