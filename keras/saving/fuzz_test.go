package saving

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/internal/h5"
)

func validSafetensors(f *testing.F) []byte {
	p := filepath.Join(f.TempDir(), "seed.safetensors")
	if err := WriteSafetensors(p, []Tensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1, 2, 3, 4}}, {Name: "b", Shape: []int{}, Data: []float32{5}}}, map[string]string{"k": "v"}); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzSafetensors: arbitrary bytes give an error or tensors whose sizes
// the file really holds; never a panic or an allocation the file does not
// justify.
func FuzzSafetensors(f *testing.F) {
	seed := validSafetensors(f)
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	huge := append([]byte(nil), seed...)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	f.Add(huge)
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := readSafetensors(bytes.NewReader(data), int64(len(data)), "fuzz.safetensors")
		if err != nil {
			return
		}
		total := 0
		for _, tt := range ts {
			total += 4 * len(tt.Data)
		}
		if total > len(data) {
			t.Fatalf("read %d bytes of tensors from %d bytes", total, len(data))
		}
	})
}

func validKeras(f *testing.F) []byte {
	p := filepath.Join(f.TempDir(), "seed.keras")
	g := h5.NewGroup()
	g.Group("layers/dense/vars").Datasets["0"] = &h5.Dataset{Shape: []int{2, 1}, DType: h5.Float32, Float32: []float32{1, 2}}
	if err := WriteKeras(p, NewMetadata("test", ""), []byte(`{"class_name": "Sequential", "config": {"layers": []}}`), g, nil); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzOpenKeras: arbitrary bytes as a .keras file give an error or an
// archive whose entries are within the limits, never a panic.
func FuzzOpenKeras(f *testing.F) {
	seed := validKeras(f)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("config.json")
	w.Write([]byte("{}"))
	zw.Close()
	f.Add(buf.Bytes())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.keras")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := OpenKeras(p)
		if err != nil {
			return
		}
		defer a.Close()
		for _, path := range a.Weights.Paths() {
			a.Weights.Read(path)
		}
	})
}
