package keras

import (
	"sort"

	"github.com/kerasgo/kerasgo/keras/layers"
)

// kerasLayerOrder returns a functional model's layers in the order of
// Keras's model.layers (map_graph in keras/src/ops/function.py): by
// depth, the longest path from the layer to an output, from the deepest
// (the inputs) to the outputs, and among layers of one depth in the order
// a depth-first walk from the outputs first meets them.
//
// The order matters beyond summaries: Keras's weights files and its
// optimizer's variables are laid out in it (a layer's variables are under
// layers/<class>_<n>, n counting the class in this order), so a model
// whose layers were listed in another order, say with a residual
// connection's projection before the main branch, would read another
// layer's weights.
func kerasLayerOrder(inputs, outputs []*layers.KerasTensor) []layers.Layer {
	isInput := map[*layers.KerasTensor]bool{}
	for _, in := range inputs {
		isInput[in] = true
	}
	parents := func(node *layers.KerasTensor) []*layers.KerasTensor {
		if isInput[node] {
			return nil
		}
		ps := node.Inputs()
		if mk := node.MaskArgument(); mk != nil {
			ps = append(ps[:len(ps):len(ps)], mk)
		}
		return ps
	}
	// _build_map: the nodes (a call's first output stands for the call),
	// inputs first, and each layer's place in the walk from the outputs.
	walkIndex := map[layers.Layer]int{}
	finished := map[*layers.KerasTensor]bool{}
	var nodes []*layers.KerasTensor
	var walk func(t *layers.KerasTensor)
	walk = func(t *layers.KerasTensor) {
		node := t.Head()
		if finished[node] {
			return
		}
		if _, ok := walkIndex[node.Layer()]; !ok {
			walkIndex[node.Layer()] = len(walkIndex)
		}
		for _, p := range parents(node) {
			walk(p)
		}
		finished[node] = true
		nodes = append(nodes, node)
	}
	for _, out := range outputs {
		walk(out)
	}
	// The depths, from the outputs back; a layer called more than once
	// takes the largest depth of its calls met so far.
	nodeDepth := map[*layers.KerasTensor]int{}
	layerDepth := map[layers.Layer]int{}
	for i := len(nodes) - 1; i >= 0; i-- {
		node := nodes[i]
		d := max(nodeDepth[node], layerDepth[node.Layer()])
		layerDepth[node.Layer()] = d
		nodeDepth[node] = d
		for _, p := range parents(node) {
			h := p.Head()
			nodeDepth[h] = max(nodeDepth[h], d+1)
		}
	}
	out := make([]layers.Layer, 0, len(layerDepth))
	for l := range layerDepth {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if di, dj := layerDepth[out[i]], layerDepth[out[j]]; di != dj {
			return di > dj
		}
		return walkIndex[out[i]] < walkIndex[out[j]]
	})
	return out
}
