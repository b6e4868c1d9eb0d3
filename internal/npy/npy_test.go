package npy

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nlpodyssey/gopickle/types"
)

// The files in testdata are NumPy's own (scripts/npy-fixtures.py): their
// values are the ones the script wrote.
func TestReadNPZ(t *testing.T) {
	a, err := ReadNPZ("testdata/numeric.npz")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"x": "[3 2] f8 [1.5 -2 3.25 4 0 -0.001]",
		"y": "[3] i8 [7 -8 9]",
		"u": "[2 2] u1 [0 255 3 4]",
		"f": "[2] f4 [0.5 2.5]", // big-endian float32
	} {
		got := fmt.Sprint(a[name].Shape, " ", a[name].DType, " ", a[name].Data)
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	o, err := ReadNPZ("testdata/objects.npz")
	if err != nil {
		t.Fatal(err)
	}
	x := o["x"]
	if x.DType != "O" || len(x.Objects) != 3 || fmt.Sprint(x.Objects[0], x.Objects[1]) != "[1 14 22] [1 5]" || len(x.Objects[2]) != 39 {
		t.Errorf("object array = %v %v", x.Shape, x.Objects)
	}
}

func TestUnpickleCIFARBatch(t *testing.T) {
	f, err := os.Open("testdata/batch.pickle")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := Unpickle(f)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := v.(*types.Dict)
	if !ok {
		t.Fatalf("got a %T, want a dict", v)
	}
	var data *NDArray
	var labels *types.List
	for _, e := range *d {
		switch fmt.Sprintf("%s", e.Key) {
		case "data":
			data, _ = e.Value.(*NDArray)
		case "labels":
			labels, _ = e.Value.(*types.List)
		}
	}
	if data == nil || labels == nil || labels.Len() != 2 {
		t.Fatalf("dict %v: want data and labels", d)
	}
	arr, err := data.Array()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(arr.Shape) != "[2 12]" || arr.Data[23] != 23 {
		t.Errorf("data = %v %v", arr.Shape, arr.Data)
	}
}

// A class Keras's RestrictedUnpickler does not allow is refused.
func TestUnpickleRefusesOtherClasses(t *testing.T) {
	f, err := os.Open("testdata/refused.pickle")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Unpickle(f); err == nil || !strings.Contains(err.Error(), "refusing to deserialize __main__.Evil") {
		t.Errorf("error %v, want a refusal naming __main__.Evil", err)
	}
	if _, err := Read([]byte("not numpy")); err == nil {
		t.Error("a file that is not .npy gave no error")
	}
}
