package keras

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Summary returns Keras's model summary table: each layer's name, class,
// output shape and parameter count, then the totals, with the same counts
// Keras gives. A functional model that is not a plain chain of layers
// (several inputs or outputs, a layer used twice, a layer with several
// inputs) gets Keras's "Connected to" column and a row per input layer.
func (m *Model) Summary() (string, error) {
	if !m.Built() {
		return "", m.errNotBuilt()
	}
	chain := m.sequentialLike()
	width, positions := 65, []int{29, 55, 65}
	header := []string{"Layer (type)", "Output Shape", "Param #"}
	if !chain {
		width, positions = 98, []int{33, 55, 67, 98}
		header = append(header, "Connected to")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %q\n", m.Name)
	b.WriteString(strings.Repeat("_", width) + "\n")
	b.WriteString(summaryRow(positions, header...))
	b.WriteString(strings.Repeat("=", width) + "\n")
	rows := m.summaryRows()
	for i, r := range rows {
		b.WriteString(summaryRow(positions, r[:len(positions)]...))
		if i < len(rows)-1 {
			b.WriteString(strings.Repeat(" ", width) + "\n")
		}
	}
	b.WriteString(strings.Repeat("=", width) + "\n")
	total := m.CountParams()
	trainable := 0
	for _, i := range m.trainableWeights() {
		trainable += m.weights[i].Shape.Size()
	}
	fmt.Fprintf(&b, "Total params: %d (%s)\n", total, memorySize(total*4))
	fmt.Fprintf(&b, "Trainable params: %d (%s)\n", trainable, memorySize(trainable*4))
	fmt.Fprintf(&b, "Non-trainable params: %d (%s)\n", total-trainable, memorySize((total-trainable)*4))
	b.WriteString(strings.Repeat("_", width) + "\n")
	return b.String(), nil
}

// sequentialLike reports whether the model is a chain of layers, each
// called once on the one before: Keras then prints it without the
// "Connected to" column.
func (m *Model) sequentialLike() bool {
	if m.sequential {
		return true
	}
	if len(m.inputs) != 1 || len(m.outputs) != 1 {
		return false
	}
	prev := m.inputs[0]
	seen := map[any]bool{}
	for _, n := range m.nodes {
		if len(n.Inputs()) != 1 || n.Inputs()[0] != prev || seen[n.Layer()] {
			return false
		}
		seen[n.Layer()] = true
		prev = n
	}
	return true
}

// summaryRows returns one row per layer, in the order of Keras's
// model.layers (which Keras's summary follows): name (class), output
// shape (of its last call, as Keras), parameter count and its inputs as
// Keras's "layer[node][tensor]"; a functional model's input layers
// among them, where Keras's order puts them.
func (m *Model) summaryRows() [][4]string {
	var rows [][4]string
	var rowLayers []layers.Layer // the layer of each row
	if !m.sequential {           // Keras lists a functional model's input layers, chain or not
		for _, in := range m.inputs {
			l := in.Layer()
			rows = append(rows, [4]string{fmt.Sprintf("%s (%s)", l.Common().Name, layers.PythonClassName(l)), summaryShape(in.Shape()), "0", "-"})
			rowLayers = append(rowLayers, l)
		}
	}
	row := map[any]int{}
	for _, n := range m.nodes {
		l := n.Layer()
		if layers.IsKerasOperation(l) { // Keras's summary lists layers, not operations (NotEqual, Any)
			continue
		}
		var conns []string
		for _, t := range n.Inputs() {
			conns = append(conns, fmt.Sprintf("%s[%d][%d]", t.Layer().Common().Name, m.nodeIndex(t), t.OutputIndex()))
		}
		if i, seen := row[l]; seen {
			rows[i][1] = nodeSummaryShape(n)
			rows[i][3] += ", " + strings.Join(conns, ", ")
			continue
		}
		params := 0
		for _, w := range layerWeights(l) {
			params += w.Shape.Size()
		}
		row[l] = len(rows)
		rowLayers = append(rowLayers, l)
		rows = append(rows, [4]string{fmt.Sprintf("%s (%s)", l.Common().Name, layers.PythonClassName(l)), nodeSummaryShape(n), fmt.Sprint(params), strings.Join(conns, ", ")})
	}
	// The calls ran in an order of their own; Keras lists the layers, the
	// input layers among them, by depth (kerasLayerOrder), which differs
	// when branches are unequal: an input that feeds a layer near the
	// outputs comes after the layers of a longer branch.
	place := map[layers.Layer]int{}
	for i, l := range m.ordered {
		place[l] = i
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return place[rowLayers[order[i]]] < place[rowLayers[order[j]]] })
	sorted := make([][4]string, len(rows))
	for i, k := range order {
		sorted[i] = rows[k]
	}
	return sorted
}

// nodeSummaryShape is a layer call's output shape as Keras's summary
// writes it: the list "[(None, 5, 3), (None, 5, 3)]" for a call with
// several outputs.
func nodeSummaryShape(n *layers.KerasTensor) string {
	outs := n.Outputs()
	if len(outs) == 1 {
		return summaryShape(n.Shape())
	}
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = summaryShape(o.Shape())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// summaryShape writes a shape as Keras's summary does: "(None, 5)", and
// "(None)" for one dimension (not Python's "(None,)").
func summaryShape(s backend.Shape) string {
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "None"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// summaryRow follows Keras's print_row: each cell ends at its position,
// leaves two spaces before the next, and wraps onto further lines if too
// long.
func summaryRow(positions []int, fields ...string) string {
	fields = append([]string(nil), fields...)
	var out strings.Builder
	for more := true; more; {
		more = false
		line := ""
		for i, f := range fields {
			start, space := 0, 2
			if i > 0 {
				start = positions[i-1]
			}
			if i == len(positions)-1 {
				space = 0
			}
			cut := min(positions[i]-start-space, len(f))
			if i == 0 {
				line += " "
			}
			line += f[:cut] + strings.Repeat(" ", space)
			fields[i] = f[cut:]
			more = more || fields[i] != ""
			line += strings.Repeat(" ", max(positions[i]-len(line), 0))
		}
		out.WriteString(line + "\n")
	}
	return out.String()
}

// memorySize formats bytes as Keras does: "4.58 MB", "0.00 Byte".
func memorySize(bytes int) string {
	units := []string{"Byte", "KB", "MB", "GB", "TB"}
	v := float64(bytes)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %s", v, units[i])
}
