package keras

import (
	"fmt"
	"strings"
)

// Summary returns Keras's model summary table: each layer's name, class,
// output shape and parameter count, then the totals, with the same counts
// Keras gives.
func (m *Model) Summary() (string, error) {
	if !m.Built() {
		return "", m.errNotBuilt()
	}
	const width = 65
	positions := []int{29, 55, 65}
	// row follows Keras's print_row: each cell ends at its position, leaves
	// two spaces before the next, and wraps onto further lines if too long.
	row := func(fields ...string) string {
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
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %q\n", m.Name)
	b.WriteString(strings.Repeat("_", width) + "\n")
	b.WriteString(row("Layer (type)", "Output Shape", "Param #"))
	b.WriteString(strings.Repeat("=", width) + "\n")
	for i, n := range m.nodes {
		l := n.Layer()
		params := 0
		for _, w := range l.Common().Weights() {
			params += w.Shape.Size()
		}
		b.WriteString(row(fmt.Sprintf("%s (%s)", l.Common().Name, l.ClassName()), n.Shape().String(), fmt.Sprint(params)))
		if i < len(m.nodes)-1 {
			b.WriteString(strings.Repeat(" ", width) + "\n")
		}
	}
	b.WriteString(strings.Repeat("=", width) + "\n")
	total := m.CountParams()
	trainable := 0
	for _, i := range m.trainableIndices() {
		trainable += m.weights[i].Shape.Size()
	}
	fmt.Fprintf(&b, "Total params: %d (%s)\n", total, memorySize(total*4))
	fmt.Fprintf(&b, "Trainable params: %d (%s)\n", trainable, memorySize(trainable*4))
	fmt.Fprintf(&b, "Non-trainable params: %d (%s)\n", total-trainable, memorySize((total-trainable)*4))
	b.WriteString(strings.Repeat("_", width) + "\n")
	return b.String(), nil
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
