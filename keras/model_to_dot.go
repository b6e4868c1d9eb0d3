package keras

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kerasgo/kerasgo/keras/layers"
)

// DotOptions are the arguments of Keras's keras.utils.model_to_dot and
// plot_model beside the model. The zero value is plot_model's defaults.
type DotOptions struct {
	// ShowShapes adds each layer's input and output shapes (Keras's
	// show_shapes); ShowDType its output dtype.
	ShowShapes, ShowDType bool
	// ShowLayerNames heads each box with the layer's name as well as its
	// class. plot_model hides names by default, model_to_dot shows them:
	// kerasgo's zero value is plot_model's.
	ShowLayerNames bool
	// RankDir is Graphviz's rankdir: "TB" (the default when empty: top to
	// bottom), "LR", "BT" or "RL".
	RankDir string
	// ExpandNested draws a nested model's layers inside a dashed cluster
	// instead of one box for the model.
	ExpandNested bool
	// DPI is the image's resolution; 0 means Keras's 200.
	DPI int
	// ShowLayerActivations adds the activation of layers that have one
	// (Dense, Conv2D, Activation, the recurrent layers, ...).
	ShowLayerActivations bool
	// ShowTrainable marks each layer with weights "Trainable" or
	// "Non-trainable".
	ShowTrainable bool
	// Splines is how Graphviz draws edges: "ortho" (the default when
	// empty: right angles), "curved", "polyline", "spline" or "line".
	Splines string
}

func (o DotOptions) resolve() (DotOptions, error) {
	if o.RankDir == "" {
		o.RankDir = "TB"
	}
	if !slices.Contains([]string{"TB", "LR", "BT", "RL"}, o.RankDir) {
		return o, fmt.Errorf("DotOptions.RankDir %q: use \"TB\" (top to bottom), \"LR\", \"BT\" or \"RL\"", o.RankDir)
	}
	if o.Splines == "" {
		o.Splines = "ortho"
	}
	if !slices.Contains([]string{"ortho", "curved", "polyline", "spline", "line", "none", "true", "false"}, o.Splines) {
		return o, fmt.Errorf("DotOptions.Splines %q: use \"ortho\", \"curved\", \"polyline\", \"spline\" or \"line\"", o.Splines)
	}
	if o.DPI == 0 {
		o.DPI = 200
	}
	if o.DPI < 0 {
		return o, fmt.Errorf("DotOptions.DPI %d: give a positive resolution, or 0 for Keras's 200", o.DPI)
	}
	return o, nil
}

// ToDot returns the model's graph in Graphviz's DOT language, as Keras's
// keras.utils.model_to_dot draws it: a box per layer (an HTML table with
// the layer's name and class, and what the options add), an edge from
// each layer to the layers that take its output. A Sequential model's
// InputLayer is not drawn, as Keras does not draw it; a functional
// model's inputs are. utils.PlotModel renders it to an image. Nodes are
// named by the layer's path in the model ("inner/dense"), where Keras
// uses Python object ids; the labels are Keras's, character for
// character.
func (m *Model) ToDot(opts DotOptions) (string, error) {
	if !m.Built() {
		return "", m.errNotBuilt()
	}
	o, err := opts.resolve()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "digraph G {\nrankdir=%s;\nconcentrate=true;\ndpi=%d;\nsplines=%s;\nnode [shape=record];\n", o.RankDir, o.DPI, o.Splines)
	d := &dotWriter{opts: o, out: &b}
	d.model(m, "")
	b.WriteString("}\n")
	return b.String(), nil
}

// dotWriter writes a model's graph.
type dotWriter struct {
	opts DotOptions
	out  *strings.Builder
}

// dotEdges are the edges of one graph or cluster, each once, in the
// order they were first drawn; Keras writes them after the graph's nodes
// and clusters.
type dotEdges struct {
	list [][2]string
	seen map[[2]string]bool
}

func (e *dotEdges) add(from, to string) {
	if e.seen == nil {
		e.seen = map[[2]string]bool{}
	}
	if k := [2]string{from, to}; !e.seen[k] {
		e.seen[k] = true
		e.list = append(e.list, k)
	}
}

// drawn returns the layers model_to_dot draws for m: a Sequential
// model's layers without its InputLayer, a functional model's
// operations with its inputs.
func drawn(m *Model) []layers.Layer {
	ls := m.Layers()
	if m.sequential && len(ls) > 0 {
		if _, ok := ls[0].(*layers.InputLayer); ok {
			ls = ls[1:]
		}
	}
	return ls
}

// model writes m's nodes (and clusters) under the path prefix, then its
// edges.
func (d *dotWriter) model(m *Model, prefix string) {
	var edges dotEdges
	defer func() {
		for _, e := range edges.list {
			fmt.Fprintf(d.out, "%q -> %q [penwidth=2];\n", e[0], e[1])
		}
	}()
	ls := drawn(m)
	for _, l := range ls {
		if inner, ok := l.(*Model); ok && d.opts.ExpandNested {
			name := l.Common().Name
			fmt.Fprintf(d.out, "subgraph %q {\nstyle=dashed;\nlabel=%q;\nlabeljust=l;\n", "cluster_"+name, name)
			d.model(inner, prefix+name+"/")
			d.out.WriteString("}\n")
			continue
		}
		fmt.Fprintf(d.out, "%q [label=<%s>, fontname=Helvetica, border=0, margin=0];\n", prefix+l.Common().Name, d.label(m, l))
	}
	if m.sequential && !d.opts.ExpandNested {
		for i := 1; i < len(ls); i++ {
			edges.add(prefix+ls[i-1].Common().Name, prefix+ls[i].Common().Name)
		}
		return
	}
	if m.sequential && len(ls) > 0 {
		ls = ls[1:] // its first layer's input, the InputLayer, is not drawn
	}
	for _, l := range ls {
		for _, n := range m.nodes {
			if n.Layer() != l {
				continue
			}
			for i, in := range n.Inputs() {
				edges.add(d.source(in, prefix), d.destination(l, i, prefix))
			}
		}
	}
}

// source is the node an edge from tensor t starts at: with ExpandNested,
// the layer inside a nested model that computes t.
func (d *dotWriter) source(t *layers.KerasTensor, prefix string) string {
	for d.opts.ExpandNested {
		inner, ok := t.Layer().(*Model)
		if !ok {
			break
		}
		prefix += inner.Common().Name + "/"
		t = inner.outputs[t.OutputIndex()]
	}
	return prefix + t.Layer().Common().Name
}

// destination is the node an edge into input i of layer l ends at: with
// ExpandNested, a nested functional model's input i, or a nested
// Sequential model's first layer.
func (d *dotWriter) destination(l layers.Layer, i int, prefix string) string {
	for d.opts.ExpandNested {
		inner, ok := l.(*Model)
		if !ok {
			break
		}
		prefix += inner.Common().Name + "/"
		if inner.sequential {
			l = drawn(inner)[0]
		} else {
			l = inner.inputs[i].Layer()
		}
	}
	return prefix + l.Common().Name
}

// label is Keras's make_layer_label: an HTML table.
func (d *dotWriter) label(m *Model, l layers.Layer) string {
	o := d.opts
	class := layers.PythonClassName(l)
	colspan := 0
	if o.ShowDType {
		colspan++
	}
	if o.ShowTrainable {
		colspan++
	}
	if o.ShowShapes {
		colspan += 2
	}
	colspan = max(colspan, 1)
	var b strings.Builder
	b.WriteString(`<table border="0" cellborder="1" bgcolor="black" cellpadding="10">`)
	title := "<b>" + class + "</b>"
	if o.ShowLayerNames {
		title = "<b>" + l.Common().Name + "</b> (" + class + ")"
	}
	fmt.Fprintf(&b, `<tr><td colspan="%d" bgcolor="black"><font point-size="16" color="white">%s</font></td></tr>`, colspan, title)
	if o.ShowLayerActivations {
		if act, ok := activationName(l); ok {
			fmt.Fprintf(&b, `<tr><td bgcolor="white" colspan="%d"><font point-size="14">Activation: <b>%s</b></font></td></tr>`, colspan, act)
		}
	}
	var cols []string
	cell := func(what, value string) {
		cols = append(cols, fmt.Sprintf(`<td bgcolor="white"><font point-size="14">%s: <b>%s</b></font></td>`, what, value))
	}
	ins, outs := firstCall(m, l)
	if o.ShowShapes {
		if _, isInput := l.(*layers.InputLayer); !isInput {
			cell("Input shape", pythonShapes(ins))
		}
		cell("Output shape", pythonShapes(outs))
	}
	if o.ShowDType {
		cell("Output dtype", pythonDTypes(outs))
	}
	if o.ShowTrainable && len(layerWeights(l)) > 0 {
		if l.Common().Trainable() {
			cols = append(cols, `<td bgcolor="forestgreen"><font point-size="14" color="white"><b>Trainable</b></font></td>`)
		} else {
			cols = append(cols, `<td bgcolor="firebrick"><font point-size="14" color="white"><b>Non-trainable</b></font></td>`)
		}
	}
	if cols != nil {
		b.WriteString("<tr>" + strings.Join(cols, "") + "</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// firstCall returns the inputs and outputs of l's first call in m (Keras's
// layer.input and layer.output, which are the first node's); an
// InputLayer's output is the model's input.
func firstCall(m *Model, l layers.Layer) (ins, outs []*layers.KerasTensor) {
	for _, t := range m.inputs {
		if t.Layer() == l {
			return nil, []*layers.KerasTensor{t}
		}
	}
	for _, n := range m.nodes {
		if n.Layer() == l {
			return n.Inputs(), n.Outputs()
		}
	}
	return nil, nil
}

// activationName is the activation Keras's plot shows for a layer with an
// activation attribute: its config's activation.
func activationName(l layers.Layer) (string, bool) {
	s, ok := l.(layers.Serializable)
	if !ok {
		return "", false
	}
	cfg, err := s.GetConfig()
	if err != nil {
		return "", false
	}
	switch a := cfg["activation"].(type) {
	case string:
		return a, true
	case map[string]any: // a registered function: {"class_name": ..., "config": ...}
		if name, ok := a["config"].(string); ok {
			return name, true
		}
		if name, ok := a["class_name"].(string); ok {
			return name, true
		}
	}
	return "", false
}

// pythonShapes writes shapes as Python prints Keras's: "(None, 8)", a
// list "[(None, 3), (None, 3)]" for several, "?" for none.
func pythonShapes(ts []*layers.KerasTensor) string {
	return pythonList(ts, func(t *layers.KerasTensor) string { return t.Shape().String() }, "")
}

// pythonDTypes writes the outputs' dtypes as Keras's label does:
// "float32", or the list "['float32', 'int32']".
func pythonDTypes(ts []*layers.KerasTensor) string {
	return pythonList(ts, func(t *layers.KerasTensor) string { return t.DType().String() }, "'")
}

// pythonList writes one value per tensor as Python prints Keras's
// structure: the value alone for one tensor, a list for several (each
// in quote), "?" for none.
func pythonList(ts []*layers.KerasTensor, value func(*layers.KerasTensor) string, quote string) string {
	switch len(ts) {
	case 0:
		return "?"
	case 1:
		return value(ts[0])
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = quote + value(t) + quote
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
