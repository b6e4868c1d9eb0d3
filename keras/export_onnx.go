package keras

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/export"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// ExportFormat names a format [Model.Export] writes.
type ExportFormat string

// The formats Model.Export writes. Keras 3 also exports TensorFlow's
// SavedModel, OpenVINO and LiteRT; kerasgo writes ONNX, which
// onnxruntime, TensorRT and OpenVINO read.
const (
	ExportONNX ExportFormat = "onnx"
)

// ExportOptions configure [Model.Export].
type ExportOptions struct {
	// Format is the file's format; "" picks it from the path's extension
	// (.onnx).
	Format ExportFormat
	// OpsetVersion is the ONNX operator set (Keras's opset_version); 0
	// means 17. kerasgo writes opsets 17 to 21.
	OpsetVersion int
	// InputSignature gives, per input, the shape of the exported graph's
	// input, batch first, -1 for a free length (Keras's input_signature,
	// None there): it fixes lengths the model leaves free. nil means the
	// model's own input shapes: the batch and every length the model
	// leaves free are free in the graph too.
	InputSignature [][]int
}

// Export writes the model's inference graph (its Predict, with the
// weights' current values) to path for other runtimes to serve, as
// Keras's model.export: ONNX, which onnxruntime runs in Python, C++, C#,
// Java and JavaScript. The graph's inputs and outputs are named after the
// model's (InputNames, OutputNames); inputs of int32 or int64 dtype
// (token ids) are int32 tensors, the rest float32. Only the batch
// dimension may vary: a model with inputs of unknown length besides the
// batch must be built with fixed lengths first.
//
// Every layer whose computation ONNX can express exports, with no
// per-layer code: the exporter records the engine ops the layers are
// written with. A model that cannot be exported is refused with an error
// naming the layer: one that runs on the host (string preprocessing), or
// one that draws random numbers when it predicts. The file is written
// atomically.
func (m *Model) Export(path string, opts ExportOptions) error {
	format := opts.Format
	if format == "" {
		if !strings.EqualFold(filepath.Ext(path), ".onnx") {
			return fmt.Errorf("Export(%q): say the format (ExportOptions.Format: keras.ExportONNX) or name the file .onnx", path)
		}
		format = ExportONNX
	}
	if format != ExportONNX {
		return fmt.Errorf("Export: format %q is not supported: kerasgo exports %q (Keras's tf_saved_model, openvino and litert formats are not written)", format, ExportONNX)
	}
	var buf bytes.Buffer
	if err := m.ExportONNX(&buf, opts); err != nil {
		return err
	}
	return saving.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// ExportONNX writes the model's inference graph as an ONNX model to w;
// see [Model.Export].
func (m *Model) ExportONNX(w io.Writer, opts ExportOptions) error {
	if !m.Built() {
		return m.errNotBuilt()
	}
	for _, n := range m.nodes {
		if m.onHost[n] {
			return fmt.Errorf("Export: layer %s runs on the host, outside the engine's graph, so ONNX cannot hold it: export the model after it (the layers from its outputs on) and run the host layer before", layers.Describe(n.Layer()))
		}
	}
	values, _, err := m.snapshot()
	if err != nil {
		return fmt.Errorf("Export: %w", err)
	}
	params := make([]export.Param, len(m.weights))
	names := m.exportWeightNames()
	for i, wt := range m.weights {
		params[i] = export.Param{Name: names[wt], Shape: wt.Shape, Value: values[i]}
	}
	inputs, err := m.exportInputs(opts.InputSignature)
	if err != nil {
		return fmt.Errorf("Export: %w", err)
	}
	o := export.Options{Opset: opts.OpsetVersion, DType: backend.Float32, Name: m.Name}
	if err := export.ONNX(w, m.predictFunc(), params, inputs, m.OutputNames(), o); err != nil {
		return fmt.Errorf("Export: %w", err)
	}
	return nil
}

// exportInputs describes the model's inputs for the exporter, their
// shapes from the signature where it gives them.
func (m *Model) exportInputs(signature [][]int) ([]export.Input, error) {
	if signature != nil && len(signature) != len(m.feeds) {
		return nil, fmt.Errorf("InputSignature has %d shapes for the model's %d inputs", len(signature), len(m.feeds))
	}
	names := tensorNames(m.feeds)
	inputs := make([]export.Input, len(m.feeds))
	for i, f := range m.feeds {
		dt := backend.Float32
		if f.DType() == backend.Int32 || f.DType() == backend.Int64 {
			dt = backend.Int32
		}
		shape := f.Shape().Clone()
		if signature != nil {
			sig := signature[i]
			if len(sig) != len(shape) {
				return nil, fmt.Errorf("InputSignature[%d] %v has rank %d; input %q has shape %v (batch first)", i, sig, len(sig), names[i], shape)
			}
			for axis, d := range sig {
				if d == 0 || d < -1 || (d > 0 && shape[axis] >= 0 && axis > 0 && shape[axis] != d) {
					return nil, fmt.Errorf("InputSignature[%d] %v: dimension %d must be -1 (free) or the input's length; input %q has shape %v", i, sig, axis, names[i], shape)
				}
				shape[axis] = d
			}
		}
		inputs[i] = export.Input{Name: names[i], Shape: shape, DType: dt}
	}
	return inputs, nil
}

// exportWeightNames names each weight in an exported graph after its
// place in the model, as a weights file does: "dense/kernel",
// "block/dense/bias".
func (m *Model) exportWeightNames() map[*layers.Weight]string {
	names := map[*layers.Weight]string{}
	taken := map[string]bool{}
	for _, g := range m.weightGroupsIn(kerasOrder) {
		prefix := strings.ReplaceAll(strings.TrimPrefix(g.path, "layers/"), "/layers/", "/")
		for _, w := range g.vars {
			if _, done := names[w]; done {
				continue
			}
			name := prefix + "/" + w.Name
			for k := 1; taken[name]; k++ {
				name = fmt.Sprintf("%s/%s_%d", prefix, w.Name, k)
			}
			taken[name] = true
			names[w] = name
		}
	}
	for i, w := range m.weights { // any the walk missed
		if _, ok := names[w]; !ok {
			names[w] = fmt.Sprintf("weight_%d", i)
		}
	}
	return names
}
