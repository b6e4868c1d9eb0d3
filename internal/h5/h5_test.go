package h5

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// kerasLike builds the tree Keras writes for a small model: nested groups,
// empty vars groups, name attributes, float32 arrays and the optimizer's
// scalar int64 iteration count and float32 learning rate.
func kerasLike() *Group {
	root := NewGroup()
	root.Group("vars").Attrs["name"] = "sequential"
	k := root.Group("layers/dense/vars")
	k.Attrs["name"] = "dense"
	k.Datasets["0"] = &Dataset{Shape: []int{3, 2}, DType: Float32, Float32: []float32{1, 2, 3, 4, 5, float32(math.Pi)}}
	k.Datasets["1"] = &Dataset{Shape: []int{2}, DType: Float32, Float32: []float32{-1, 0.5}}
	root.Group("layers/flatten/vars").Attrs["name"] = "flatten"
	opt := root.Group("optimizer/vars")
	opt.Attrs["name"] = "adam"
	opt.Datasets["0"] = &Dataset{DType: Int64, Int64: []int64{1234567890123}}
	opt.Datasets["1"] = &Dataset{DType: Float32, Float32: []float32{0.001}}
	for i := 2; i < 20; i++ { // more members than one default-sized symbol node holds
		opt.Datasets[itoa(i)] = &Dataset{Shape: []int{1, 2, 1}, DType: Float64, Float64: []float64{float64(i), -float64(i)}}
	}
	return root
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

func writeTemp(t *testing.T, g *Group) string {
	t.Helper()
	var buf bytes.Buffer
	n, err := Write(&buf, g)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("Write reported %d bytes, wrote %d", n, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "w.h5")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWriteThenRead(t *testing.T) {
	want := kerasLike()
	f, err := Open(writeTemp(t, want))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	count := 0
	want.Walk(func(path string, d *Dataset) {
		count++
		info := f.Dataset(path)
		if info == nil {
			t.Errorf("%s: missing", path)
			return
		}
		if info.DType != d.DType || !reflect.DeepEqual(append([]int{}, info.Shape...), append([]int{}, d.Shape...)) {
			t.Errorf("%s: got %v %v, want %v %v", path, info.DType, info.Shape, d.DType, d.Shape)
		}
		got, err := f.Read(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		if !reflect.DeepEqual(got.Float32, d.Float32) || !reflect.DeepEqual(got.Float64, d.Float64) || !reflect.DeepEqual(got.Int64, d.Int64) {
			t.Errorf("%s: values %v%v%v, want %v%v%v", path, got.Float32, got.Float64, got.Int64, d.Float32, d.Float64, d.Int64)
		}
	})
	if len(f.Paths()) != count {
		t.Errorf("file has %d datasets, wrote %d: %v", len(f.Paths()), count, f.Paths())
	}
	for _, g := range []string{"vars", "layers/flatten/vars", "optimizer/vars"} {
		if !f.HasGroup(g) {
			t.Errorf("group %s missing", g)
		}
	}
	if got := f.Children("layers"); !reflect.DeepEqual(got, []string{"dense", "flatten"}) {
		t.Errorf("Children(layers) = %v", got)
	}
}

func TestWriteRejectsInconsistentDatasets(t *testing.T) {
	g := NewGroup()
	g.Datasets["x"] = &Dataset{Shape: []int{2, 2}, DType: Float32, Float32: []float32{1}}
	if _, err := Write(&bytes.Buffer{}, g); err == nil {
		t.Error("a dataset with 1 value for shape (2, 2) was written")
	}
}

// h5py (Debian's python3-h5py, over the HDF5 C library) must read what
// Write produces: the tree, shapes, dtypes, values and attributes.
func TestH5pyReadsWrittenFile(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import h5py").Run(); err != nil {
		t.Skip("h5py is not installed (apt-get install python3-h5py); .ci/run installs it")
	}
	path := writeTemp(t, kerasLike())
	script := `
import h5py, sys, json
out = {}
with h5py.File(sys.argv[1], "r") as f:
    def visit(name, obj):
        attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in obj.attrs.items()}
        if isinstance(obj, h5py.Dataset):
            out[name] = {"shape": list(obj.shape), "dtype": str(obj.dtype), "values": obj[()].ravel().tolist() if obj.shape else [obj[()].item()], "attrs": attrs}
        else:
            out[name] = {"attrs": attrs}
    f.visititems(visit)
print(json.dumps(out))
`
	cmd := exec.Command(py, "-c", script, path)
	raw, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("h5py failed: %v\n%s", err, stderr)
	}
	var got map[string]struct {
		Shape  []int             `json:"shape"`
		DType  string            `json:"dtype"`
		Values []float64         `json:"values"`
		Attrs  map[string]string `json:"attrs"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	want := kerasLike()
	n := 0
	want.Walk(func(path string, d *Dataset) {
		n++
		g, ok := got[path]
		if !ok {
			t.Errorf("h5py does not see %s", path)
			return
		}
		if g.DType != d.DType.String() || fmt.Sprint(g.Shape) != fmt.Sprint(append([]int{}, d.Shape...)) {
			t.Errorf("%s: h5py sees %s %v, want %v %v", path, g.DType, g.Shape, d.DType, d.Shape)
		}
		var vals []float64
		for _, v := range d.Float32 {
			vals = append(vals, float64(v))
		}
		vals = append(vals, d.Float64...)
		for _, v := range d.Int64 {
			vals = append(vals, float64(v))
		}
		if fmt.Sprint(g.Values) != fmt.Sprint(vals) {
			t.Errorf("%s: h5py reads %v, want %v", path, g.Values, vals)
		}
	})
	if got["optimizer/vars"].Attrs["name"] != "adam" || got["layers/dense/vars"].Attrs["name"] != "dense" {
		t.Errorf("attributes: %v, %v", got["optimizer/vars"].Attrs, got["layers/dense/vars"].Attrs)
	}
	if _, ok := got["layers/flatten/vars"]; !ok {
		t.Error("h5py does not see the empty group layers/flatten/vars")
	}
	const groups = 8 // vars, layers, layers/dense, layers/dense/vars, layers/flatten, layers/flatten/vars, optimizer, optimizer/vars
	if len(got) != n+groups {
		t.Errorf("h5py sees %d objects, want %d datasets and %d groups", len(got), n, groups)
	}
}

// Keras's float16 and bfloat16 variables read exactly as float32.
func TestHalfPrecisionValues(t *testing.T) {
	for _, c := range []struct {
		kind halfKind
		bits uint16
		want float32
	}{
		{ieeeHalf, 0x3c00, 1},
		{ieeeHalf, 0xc000, -2},
		{ieeeHalf, 0x3555, 0.333251953125},
		{ieeeHalf, 0x7bff, 65504},
		{ieeeHalf, 0x0001, 5.960464477539063e-08}, // the smallest subnormal
		{ieeeHalf, 0x8000, float32(math.Copysign(0, -1))},
		{ieeeHalf, 0x7c00, float32(math.Inf(1))},
		{brainHalf, 0x3f80, 1},
		{brainHalf, 0xc040, -3},
		{brainHalf, 0x3eab, 0.333984375},
		{brainHalf, 0xff80, float32(math.Inf(-1))},
	} {
		if got := c.kind.float32(c.bits); got != c.want || math.Signbit(float64(got)) != math.Signbit(float64(c.want)) {
			t.Errorf("kind %d, bits %#04x: %v, want %v", c.kind, c.bits, got, c.want)
		}
	}
	if v := ieeeHalf.float32(0x7e00); !math.IsNaN(float64(v)) {
		t.Errorf("float16 NaN read as %v", v)
	}
}

// A dataset's stored type is named as the file stores it (an int32
// dataset is int32 in errors, though it is read widened to Int64).
func TestStoredTypeNamesTheFilesType(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import h5py").Run(); err != nil {
		t.Skip("h5py is not installed (apt-get install python3-h5py); .ci/run installs it")
	}
	path := filepath.Join(t.TempDir(), "types.h5")
	script := `
import h5py, numpy as np, sys
with h5py.File(sys.argv[1], "w") as f:
    for t in ["int32", "uint8", "int64", "float16", "float32", "float64"]:
        f.create_dataset(t, data=np.arange(3, dtype=t))
`
	if out, err := exec.Command(py, "-c", script, path).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, want := range []string{"int32", "uint8", "int64", "float16", "float32", "float64"} {
		d, err := f.Read(want)
		if err != nil {
			t.Fatal(err)
		}
		if d.Stored != want {
			t.Errorf("dataset %s: Stored is %q", want, d.Stored)
		}
	}
}

// The string attributes h5py writes, as Keras's legacy HDF5 files hold
// them, read back: fixed-length strings (h5py 2, the files
// keras.applications downloads) and variable-length ones (h5py 3), scalar
// and arrays, short and longer than a global heap collection's default
// size; other attributes are skipped.
func TestReadsH5pyAttributes(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import h5py").Run(); err != nil {
		t.Skip("h5py is not installed (apt-get install python3-h5py); .ci/run installs it")
	}
	path := filepath.Join(t.TempDir(), "attrs.h5")
	script := `
import h5py, sys, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["model_config"] = ("{" + "x" * 200000 + "}").encode("utf8")  # variable length (h5py 3)
    f.attrs["fixed"] = np.bytes_("2.1.6")                                 # fixed length
    f.attrs["count"] = 7
    g = f.create_group("model_weights")
    g.attrs["layer_names"] = np.array([b"conv1", b"bn_conv1", b"fc1000"])             # fixed length, |S8
    g.attrs["weight_names"] = np.array(["a/kernel:0", "b/bias:0"], dtype=h5py.string_dtype())  # variable length
    g.create_dataset("w", data=np.arange(3, dtype="float32"))
`
	if out, err := exec.Command(py, "-c", script, path).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		group, name string
		want        []string
	}{
		{"", "model_config", []string{"{" + strings.Repeat("x", 200000) + "}"}},
		{"", "fixed", []string{"2.1.6"}},
		{"model_weights", "layer_names", []string{"conv1", "bn_conv1", "fc1000"}},
		{"model_weights", "weight_names", []string{"a/kernel:0", "b/bias:0"}},
	} {
		got, ok := f.Attr(c.group, c.name)
		if !ok || fmt.Sprint(got) != fmt.Sprint(c.want) {
			s := fmt.Sprint(got)
			t.Errorf("%s/%s = %.80s (%v), want %.80s", c.group, c.name, s, ok, fmt.Sprint(c.want))
		}
	}
	if _, ok := f.Attr("", "count"); ok {
		t.Error("the integer attribute count reads as a string")
	}
}

// The string attributes Write writes read back.
func TestWrittenAttributesReadBack(t *testing.T) {
	f, err := Open(writeTemp(t, kerasLike()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, ok := f.Attr("layers/dense/vars", "name"); !ok || len(got) != 1 || got[0] != "dense" {
		t.Fatalf("layers/dense/vars name = %v, %v; want dense", got, ok)
	}
}
