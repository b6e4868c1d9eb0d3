package backend_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

func TestTraceFindsGradInputsAndShapeErrors(t *testing.T) {
	specs := []backend.Spec{{Shape: backend.Shape{2, 3}}, {Shape: backend.Shape{3, 4}}, {Shape: backend.Shape{2, 4}}}
	info, err := backend.Trace(func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		loss := b.Mean(b.Square(b.Sub(b.MatMul(in[0], in[1]), in[2])))
		return append([]backend.Value{loss}, b.Grad(loss, in[1:2])...), nil
	}, specs)
	if err != nil {
		t.Fatal(err)
	}
	if info.GradInputs[0] || !info.GradInputs[1] || info.GradInputs[2] || info.GradOther {
		t.Errorf("GradInputs = %v, GradOther = %v; want only input 1", info.GradInputs, info.GradOther)
	}
	if len(info.Outputs) != 2 || len(info.Outputs[0]) != 0 || !info.Outputs[1].Equal(backend.Shape{3, 4}) {
		t.Errorf("outputs %v", info.Outputs)
	}
	_, err = backend.Trace(func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.MatMul(in[0], in[0])}, nil
	}, specs)
	if err == nil || !strings.Contains(err.Error(), "MatMul") {
		t.Errorf("shape error: %v", err)
	}
}
