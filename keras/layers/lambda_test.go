package layers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

func init() {
	if err := layers.RegisterLambda("lambda_test_triple", layers.LambdaFunc{
		Call: func(ctx *layers.Context, in []backend.Value) backend.Value { return ctx.B.Mul(in[0], ctx.B.Scalar(3)) },
	}); err != nil {
		panic(err)
	}
}

func decodeConfig(t *testing.T, s string) serialization.Config {
	t.Helper()
	var c serialization.Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// A Lambda from a Keras config computes its registered Go function on
// every engine and saves its function object back as Keras wrote it; one
// whose function has no Go counterpart, or that passes Python keyword
// arguments, is refused naming the layer, the function and the fix.
func TestLambda(t *testing.T) {
	named := `{"name": "lambda", "function": {"module": "builtins", "class_name": "function", "config": "lambda_test_triple", "registered_name": "function"}, "arguments": {}}`
	l, err := layers.FromConfig("Lambda", decodeConfig(t, named))
	if err != nil {
		t.Fatal(err)
	}
	out := layers.Apply(l, layers.Input(3))
	if out.Err() != nil || !out.Shape().Equal(backend.Shape{-1, 3}) {
		t.Fatalf("output %v, %v", out.Shape(), out.Err())
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		x := backendtest.Array{Shape: backend.Shape{2, 3}, Data: []float64{1, 2, 3, -1, 0, 0.5}}
		got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{l.Call(layers.NewContext(b, false, nil), v)}, nil
		}, []backendtest.Array{x})
		if err != nil {
			t.Fatal(err)
		}
		backendtest.AssertClose(t, "Lambda", got[0], backendtest.Array{Shape: x.Shape, Data: []float64{3, 6, 9, -3, 0, 1.5}}, 1e-6)
	})
	cfg, err := layers.Config(l)
	if err != nil {
		t.Fatal(err)
	}
	if fn, _ := cfg["function"].(map[string]any); fn["config"] != "lambda_test_triple" || fn["class_name"] != "function" {
		t.Errorf("saved function %v", cfg["function"])
	}
	for _, c := range []struct{ config, want string }{
		{`{"name": "lambda", "function": {"module": "builtins", "class_name": "function", "config": "not_registered"}}`,
			`layers.RegisterLambda("not_registered"`},
		{`{"name": "square", "function": {"class_name": "__lambda__", "config": {"code": "4wEAAA=="}}}`,
			`a Python lambda (looked up by the layer's name) has no Go counterpart: register one with layers.RegisterLambda("square"`},
		{`{"name": "lambda", "function": {"class_name": "function", "config": "lambda_test_triple"}, "arguments": {"k": 2}}`,
			`take no keyword arguments`},
	} {
		_, err := layers.FromConfig("Lambda", decodeConfig(t, c.config))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `layer "`) {
			t.Errorf("%s: error %v, want one naming the layer and containing %q", c.config, err, c.want)
		}
	}
}
