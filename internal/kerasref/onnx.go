package kerasref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ONNXInput is an input of an exported model as scripts/onnx-check.py
// reads it.
type ONNXInput struct {
	Name  string    `json:"name"`
	DType string    `json:"dtype"` // "float32" or "int32"
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// ONNXCase is one model exported to DIR/<Name>.onnx, with its inputs.
type ONNXCase struct {
	Name   string      `json:"name"`
	Inputs []ONNXInput `json:"inputs"`
}

// ONNXResult is what onnxruntime computed for a case: its outputs for the
// inputs, and for the inputs stacked twice along the batch (an exported
// graph's batch is free), or the error the onnx checker or onnxruntime
// gave.
type ONNXResult struct {
	Error   string  `json:"error"`
	Outputs []Array `json:"outputs"`
	Doubled []Array `json:"doubled"`
}

// RunONNX runs scripts/onnx-check.py over the cases exported to dir and
// returns onnxruntime's result by case name, skipping t when the Keras
// environment or its onnxruntime is missing.
func RunONNX(t testing.TB, dir string, cases []ONNXCase) map[string]ONNXResult {
	t.Helper()
	python := Python(t)
	index, err := json.Marshal(map[string]any{"cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), index, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, Script(t, "onnx-check.py"), dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			t.Skipf("ONNX export checks SKIPPED: %s", strings.TrimSpace(out.String()))
		}
		t.Fatalf("onnx-check.py: %v\n%s", err, out.Bytes())
	}
	results := map[string]ONNXResult{}
	for _, c := range cases {
		var r ONNXResult
		ReadJSON(t, filepath.Join(dir, c.Name+".ort.json"), &r)
		results[c.Name] = r
	}
	return results
}

// Worst returns the largest difference, relative to max(1, |want|),
// between onnxruntime's outputs and want (kerasgo's), and between the
// outputs for the doubled batch and want stacked twice.
func (r ONNXResult) Worst(want [][]float32) (float64, error) {
	if r.Error != "" {
		return 0, fmt.Errorf("onnxruntime: %s", r.Error)
	}
	if len(r.Outputs) != len(want) || len(r.Doubled) != len(want) {
		return 0, fmt.Errorf("onnxruntime gave %d outputs (%d for the doubled batch), kerasgo %d", len(r.Outputs), len(r.Doubled), len(want))
	}
	worst := 0.0
	for k, w := range want {
		if len(r.Outputs[k].Data) != len(w) || len(r.Doubled[k].Data) != 2*len(w) {
			return 0, fmt.Errorf("output %d: onnxruntime gave shapes %v and %v (doubled batch) for kerasgo's %d values", k, r.Outputs[k].Shape, r.Doubled[k].Shape, len(w))
		}
		for i, v := range w {
			scale := math.Max(1, math.Abs(float64(v)))
			for _, got := range []float64{r.Outputs[k].Data[i], r.Doubled[k].Data[i], r.Doubled[k].Data[len(w)+i]} {
				if d := math.Abs(got-float64(v)) / scale; d > worst || math.IsNaN(d) {
					worst = d
				}
			}
		}
	}
	return worst, nil
}
