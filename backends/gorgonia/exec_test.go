package gorgonia_test

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// A node no output needs is not run: a gather with ids out of range
// beside the output would fail the run if it were (Gorgonia runs every
// node of a graph, and differentiates a matmul in both operands, so a
// model's input got a gradient nothing read).
func TestRunSkipsWhatNoOutputNeeds(t *testing.T) {
	be, err := backend.Open("gorgonia")
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		b.Gather(in[0], in[1]) // unused, and its ids are out of range
		return []backend.Value{b.Add(in[0], in[0])}, b.Err()
	}
	table := backendtest.Array{Shape: backend.Shape{3, 2}, Data: []float64{1, 2, 3, 4, 5, 6}}
	ids := backendtest.Array{Shape: backend.Shape{2}, Data: []float64{5, 7}, Int: true}
	out, err := backendtest.Eval(be, backend.Float32, fn, []backendtest.Array{table, ids})
	if err != nil {
		t.Fatalf("the unused gather ran: %v", err)
	}
	for i, v := range out[0].Data {
		if want := 2 * table.Data[i]; v != want {
			t.Fatalf("output %d = %v, want %v", i, v, want)
		}
	}
	// The same gather as an output fails, so the check above can fail.
	used := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return []backend.Value{b.Gather(in[0], in[1])}, b.Err()
	}
	if _, err := backendtest.Eval(be, backend.Float32, used, []backendtest.Array{table, ids}); err == nil {
		t.Fatal("a gather with ids out of range ran without error")
	}
}
