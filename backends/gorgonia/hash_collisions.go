package gorgonia

import (
	"fmt"
	"reflect"
	"unsafe"

	G "gorgonia.org/gorgonia"
)

// Gorgonia's compiler (v0.9.18, analysis.go's value numbering) merges
// the nodes of a graph that have the same 32-bit hash, without comparing
// them: a node is replaced by whichever node came first with its hash.
// Two different nodes share a hash by chance in about one graph in a
// hundred at the size of EfficientNetV2S, and the program then computes
// a wrong value silently (an Add of shape (2, 2, 2, 256) replaced by a
// weight of shape (48)), or panics in a kernel given a buffer of another
// shape. Which graphs collide depends on every host op built before in
// the process (their hashes number them), so the failure came and went
// with the order of the tests. separateHashCollisions runs before the
// compiler and gives each node that shares its hash with a node it does
// not equal a hash of its own; nodes that do equal each other (the same
// op on the same inputs) keep theirs, so the compiler still merges real
// repeats.
//
// Not fixed here: Gorgonia's graph (ExprGraph.AddNode) also returns an
// existing node for a new one of the same hash, op, type and shape
// without comparing their inputs. That needs a collision between two
// nodes of one op and shape, far rarer than any two nodes' (none was seen
// in the runs that met three of the compiler's), and it happens while
// the graph is built, inside Gorgonia, where kerasgo cannot see it.

// The offsets of Gorgonia's Node.hash, Node.hashed and Node.children,
// found by name once, so that a Gorgonia without them fails at start
// rather than corrupting memory (as derivField).
var (
	nodeHashField     = nodeField("hash", reflect.TypeFor[uint32]())
	nodeHashedField   = nodeField("hashed", reflect.TypeFor[bool]())
	nodeChildrenField = nodeField("children", reflect.TypeFor[G.Nodes]())
)

func nodeField(name string, typ reflect.Type) uintptr {
	f, ok := reflect.TypeFor[G.Node]().FieldByName(name)
	if !ok || f.Type != typ {
		panic(fmt.Sprintf("backends/gorgonia: gorgonia.Node has no %s %v field: this Gorgonia version is not the one kerasgo was built against (go.mod)", name, typ))
	}
	return f.Offset
}

func children(n *G.Node) G.Nodes {
	return *(*G.Nodes)(unsafe.Add(unsafe.Pointer(n), nodeChildrenField))
}

// setHash replaces the hash Gorgonia computed (and cached) for n.
func setHash(n *G.Node, h uint32) {
	n.Hashcode() // computed and cached first, so that it is not computed again
	*(*uint32)(unsafe.Add(unsafe.Pointer(n), nodeHashField)) = h
	*(*bool)(unsafe.Add(unsafe.Pointer(n), nodeHashedField)) = true
}

// separateHashCollisions gives every node of g that shares its hash with
// a node it does not equal a hash no other node has, and returns how
// many it changed. Two nodes are equal when both apply the same op (by
// Gorgonia's op hash and name) to equal children and have one type and
// shape; leaves (inputs, constants) equal only themselves.
func separateHashCollisions(g *G.ExprGraph) (int, error) {
	sorted, err := G.Sort(g)
	if err != nil {
		return 0, err
	}
	used := make(map[uint32]bool, len(sorted))
	for _, n := range sorted {
		used[n.Hashcode()] = true
	}
	first := make(map[uint32]*G.Node, len(sorted))  // the node each hash stands for
	class := make(map[*G.Node]*G.Node, len(sorted)) // each node's representative
	changed := 0
	for i := len(sorted) - 1; i >= 0; i-- { // children before parents
		n := sorted[i]
		h := n.Hashcode()
		m, seen := first[h]
		switch {
		case !seen:
			first[h], class[n] = n, n
		case equalNodes(n, m, class):
			class[n] = class[m]
		default:
			for used[h] {
				h++
			}
			used[h] = true
			setHash(n, h)
			first[h], class[n] = n, n
			changed++
		}
	}
	return changed, nil
}

func equalNodes(a, b *G.Node, class map[*G.Node]*G.Node) bool {
	if a == b {
		return true
	}
	ca, cb := children(a), children(b)
	if a.Op() == nil || b.Op() == nil || len(ca) == 0 || len(ca) != len(cb) {
		return false // leaves are themselves only
	}
	if a.Op().Hashcode() != b.Op().Hashcode() || a.Op().String() != b.Op().String() ||
		a.Type() != b.Type() || !a.Shape().Eq(b.Shape()) {
		return false
	}
	for i := range ca {
		if class[ca[i]] != class[cb[i]] || class[ca[i]] == nil {
			return false
		}
	}
	return true
}
