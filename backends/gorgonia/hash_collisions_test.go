package gorgonia

import (
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// collidingGraph is x+1 and x*2 of x = [1, 2, 3], with x*2 given the hash
// of x+1, as two nodes share a hash by chance in large graphs.
func collidingGraph(t *testing.T) (g *G.ExprGraph, x, sum, product *G.Node) {
	t.Helper()
	g = G.NewGraph()
	x = G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("x"))
	sum = G.Must(G.Add(x, G.NewConstant(float32(1))))
	product = G.Must(G.Mul(x, G.NewConstant(float32(2))))
	setHash(product, sum.Hashcode())
	return g, x, sum, product
}

func runCollidingGraph(t *testing.T, separate bool) []float32 {
	t.Helper()
	g, x, sum, product := collidingGraph(t)
	var sumV, productV G.Value
	G.Read(sum, &sumV)
	G.Read(product, &productV)
	if separate {
		n, err := separateHashCollisions(g)
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("separated %d nodes, want 1", n)
		}
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := G.Let(x, tensor.New(tensor.WithBacking([]float32{1, 2, 3}))); err != nil {
		t.Fatal(err)
	}
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return productV.Data().([]float32)
}

// Two different nodes that share a hash are computed each as itself once
// separateHashCollisions has run; without it, Gorgonia's compiler
// computes one in place of the other (the wrong values the applications'
// tests met in EfficientNetV2S).
func TestSeparateHashCollisions(t *testing.T) {
	if got := runCollidingGraph(t, false); got[0] == 2 && got[1] == 4 && got[2] == 6 {
		t.Logf("Gorgonia no longer merges nodes by hash alone: separateHashCollisions may be unneeded")
	} else {
		t.Logf("without separating, x*2 = %v", got)
	}
	if got := runCollidingGraph(t, true); got[0] != 2 || got[1] != 4 || got[2] != 6 {
		t.Fatalf("x*2 = %v, want [2 4 6]", got)
	}
}

// A graph without collisions is left as it is.
func TestSeparateHashCollisionsLeavesOthers(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("x"))
	y := x
	for i := range 50 {
		y = G.Must(G.Add(G.Must(G.Mul(y, G.NewConstant(float32(i)))), x))
	}
	if n, err := separateHashCollisions(g); err != nil || n != 0 {
		t.Fatalf("separated %d nodes (%v), want 0", n, err)
	}
}
