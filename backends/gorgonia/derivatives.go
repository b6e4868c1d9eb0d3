package gorgonia

import (
	"reflect"
	"unsafe"

	G "gorgonia.org/gorgonia"
)

// derivField is the offset of Gorgonia's Node.deriv, the derivative its
// back-propagation recorded for a node (gorgonia v0.9.18 has no way to
// clear it; see differentiate). Found once, by name, so that a Gorgonia
// without the field fails loudly at start rather than corrupting memory.
var derivField = func() uintptr {
	f, ok := reflect.TypeFor[G.Node]().FieldByName("deriv")
	if !ok || f.Type != reflect.TypeFor[*G.Node]() {
		panic("backends/gorgonia: gorgonia.Node has no deriv *Node field: this Gorgonia version is not the one kerasgo was built against (go.mod)")
	}
	return f.Offset
}()

// forgetDerivatives clears the derivative back-propagation recorded on
// each node of g, so that the next one differentiates its own cost.
func forgetDerivatives(g *G.ExprGraph) {
	for _, n := range g.AllNodes() {
		*(**G.Node)(unsafe.Add(unsafe.Pointer(n), derivField)) = nil
	}
}
