package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/kerasgo/kerasgo/keras"
)

// export runs `kerasgo export MODEL.keras OUT.onnx`: the model's
// inference graph, with its weights, as an ONNX model (Model.Export).
func export(args []string) error {
	fs := flag.NewFlagSet("export", flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: kerasgo export [flags] model.keras out.onnx

Writes the model's inference graph, with its weights, as an ONNX model that
onnxruntime (and TensorRT, OpenVINO, ...) can run; as Keras's
model.export(path, format="onnx"). The batch dimension, and every length the
model leaves free, are free in the graph unless -shape fixes them.

flags:`)
		fs.PrintDefaults()
	}
	opset := fs.Int("opset", 0, "ONNX operator set, 17 to 21 (default 17)")
	var shapes shapeFlags
	fs.Var(&shapes, "shape", "an input's shape, batch first, -1 for a free length (e.g. -shape -1,128); once per input, in order")
	_ = fs.Parse(args)
	if fs.NArg() != 2 {
		fs.Usage()
		return fmt.Errorf("export: want a .keras file and an output path, got %d arguments", fs.NArg())
	}
	m, err := keras.LoadModel(fs.Arg(0), keras.LoadOptions{})
	if err != nil {
		return err
	}
	if err := m.Export(fs.Arg(1), keras.ExportOptions{Format: keras.ExportONNX, OpsetVersion: *opset, InputSignature: shapes}); err != nil {
		return err
	}
	fmt.Printf("kerasgo export: wrote %s (inputs %v, outputs %v)\n", fs.Arg(1), m.InputNames(), m.OutputNames())
	return nil
}

// shapeFlags collects -shape flags: one shape per input.
type shapeFlags [][]int

func (s *shapeFlags) String() string { return fmt.Sprint([][]int(*s)) }

func (s *shapeFlags) Set(v string) error {
	var shape []int
	for _, part := range strings.Split(v, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return fmt.Errorf("shape %q: want whole numbers separated by commas, -1 for a free length", v)
		}
		shape = append(shape, d)
	}
	*s = append(*s, shape)
	return nil
}
