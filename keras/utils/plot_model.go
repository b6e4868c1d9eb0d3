package utils

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// ModelToDot is Keras's keras.utils.model_to_dot: the model's graph in
// Graphviz's DOT language (see keras.Model.ToDot). Keras's model_to_dot
// shows layer names by default; with DotOptions, ask for them with
// ShowLayerNames.
func ModelToDot(m *keras.Model, opts keras.DotOptions) (string, error) {
	return m.ToDot(opts)
}

// PlotModel is Keras's keras.utils.plot_model: it draws the model's graph
// (ModelToDot) to toFile with Graphviz's dot program, in the format the
// file's extension names ("model.png", "model.svg", "model.pdf"; no
// extension: PNG, as Keras). A ".dot" or ".gv" file gets the DOT text
// itself, without Graphviz. The file is written atomically: a failed
// render leaves no file, and an existing one is replaced only once the
// new one is complete. Graphviz is found on PATH (Debian's graphviz
// package); without it the error says how to install it.
func PlotModel(m *keras.Model, toFile string, opts keras.DotOptions) error {
	text, err := m.ToDot(opts)
	if err != nil {
		return fmt.Errorf("PlotModel: %w", err)
	}
	format := strings.TrimPrefix(filepath.Ext(toFile), ".")
	if format == "" {
		format = "png"
	}
	var image []byte
	switch strings.ToLower(format) {
	case "dot", "gv":
		image = []byte(text)
	default:
		dot, err := exec.LookPath("dot")
		if err != nil {
			return fmt.Errorf("PlotModel: Graphviz's dot program, which draws the graph, is not installed: sudo apt-get install graphviz (or see https://graphviz.org/download/), or save the DOT text with a .dot file name")
		}
		cmd := exec.Command(dot, "-T"+format)
		var stdout, stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("PlotModel: Graphviz's dot -T%s failed (%v): %s", format, err, strings.TrimSpace(stderr.String()))
		}
		image = stdout.Bytes()
	}
	if err := saving.WriteAtomic(toFile, func(w io.Writer) error { _, err := w.Write(image); return err }); err != nil {
		return fmt.Errorf("PlotModel: %w", err)
	}
	return nil
}
