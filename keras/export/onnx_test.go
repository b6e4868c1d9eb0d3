package export

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"google.golang.org/protobuf/encoding/protowire"
)

// decoded is a protobuf message read back field by field: the varints
// and the length-delimited values of each field number.
type decoded struct {
	varints map[protowire.Number][]uint64
	bytes   map[protowire.Number][][]byte
}

func decode(t *testing.T, b []byte) decoded {
	t.Helper()
	d := decoded{varints: map[protowire.Number][]uint64{}, bytes: map[protowire.Number][][]byte{}}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			d.varints[num] = append(d.varints[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			d.bytes[num] = append(d.bytes[num], v)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			b = b[n:]
		}
	}
	return d
}

func (d decoded) str(num protowire.Number) string {
	if len(d.bytes[num]) == 0 {
		return ""
	}
	return string(d.bytes[num][0])
}

// dims reads a ValueInfoProto's shape: a length, or the free dimension's
// name.
func dims(t *testing.T, valueInfo []byte) []string {
	t.Helper()
	typ := decode(t, decode(t, valueInfo).bytes[valueInfoType][0])
	tensor := decode(t, typ.bytes[typeTensor][0])
	shape := decode(t, tensor.bytes[tensorTypeShape][0])
	var out []string
	for _, dim := range shape.bytes[shapeDim] {
		d := decode(t, dim)
		if name := d.str(dimParam); name != "" {
			out = append(out, name)
		} else {
			out = append(out, strconv.FormatUint(d.varints[dimValue][0], 10))
		}
	}
	return out
}

// dense is a Dense layer with softmax, as a Func: (w, b, x) -> softmax(xw+b).
func dense(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
	return []backend.Value{b.Softmax(b.Add(b.MatMul(in[2], in[0]), in[1]))}, nil
}

// A written model reads back with the fields ONNX's schema gives them:
// the IR version and opset, the graph's named input and output with a
// free batch dimension, the weights as initializers and the nodes.
func TestWrittenModelReadsBack(t *testing.T) {
	var buf bytes.Buffer
	params := []Param{{Name: "dense/kernel", Shape: backend.Shape{3, 2}, Value: []float32{1, 2, 3, 4, 5, 6}}, {Name: "dense/bias", Shape: backend.Shape{2}, Value: []float32{0, 1}}}
	inputs := []Input{{Name: "x", Shape: backend.Shape{-1, 3}}}
	if err := ONNX(&buf, dense, params, inputs, []string{"y"}, Options{Name: "tiny"}); err != nil {
		t.Fatal(err)
	}
	model := decode(t, buf.Bytes())
	if got := model.varints[modelIRVersion]; len(got) != 1 || got[0] != 8 {
		t.Errorf("ir_version %v, want 8 for opset 17", got)
	}
	opset := decode(t, model.bytes[modelOpsetImport][0])
	if opset.varints[opsetVersion][0] != 17 || opset.str(opsetDomain) != "" {
		t.Errorf("opset %v of domain %q, want 17 of the default domain", opset.varints[opsetVersion], opset.str(opsetDomain))
	}
	graph := decode(t, model.bytes[modelGraph][0])
	if graph.str(graphName) != "tiny" {
		t.Errorf("graph name %q", graph.str(graphName))
	}
	in := decode(t, graph.bytes[graphInput][0])
	if in.str(valueInfoName) != "x" || strings.Join(dims(t, graph.bytes[graphInput][0]), ",") != "batch,3" {
		t.Errorf("input %q of shape %v, want x of (batch, 3)", in.str(valueInfoName), dims(t, graph.bytes[graphInput][0]))
	}
	out := decode(t, graph.bytes[graphOutput][0])
	if out.str(valueInfoName) != "y" || strings.Join(dims(t, graph.bytes[graphOutput][0]), ",") != "batch,2" {
		t.Errorf("output %q of shape %v, want y of (batch, 2)", out.str(valueInfoName), dims(t, graph.bytes[graphOutput][0]))
	}
	var inits []string
	for _, b := range graph.bytes[graphInitializer] {
		inits = append(inits, decode(t, b).str(tensorName))
	}
	if len(inits) != 2 || inits[0] != "dense/kernel" || inits[1] != "dense/bias" {
		t.Errorf("initializers %v, want the two weights", inits)
	}
	kernel := decode(t, graph.bytes[graphInitializer][0])
	if raw := kernel.bytes[tensorRawData][0]; len(raw) != 24 || !bytes.Equal(raw[4:8], float32Raw([]float32{2})) {
		t.Errorf("kernel's raw data %v, want 6 little-endian float32s", raw)
	}
	var ops []string
	for _, b := range graph.bytes[graphNode] {
		ops = append(ops, decode(t, b).str(nodeOpType))
	}
	if strings.Join(ops, " ") != "MatMul Add Softmax Identity" {
		t.Errorf("nodes %v, want MatMul Add Softmax Identity", ops)
	}
}

// An op without an ONNX form, or a graph that computes other ops for
// another batch size, is refused with an error naming the scope (the
// layer) that asked for it.
func TestRefusals(t *testing.T) {
	inputs := []Input{{Name: "x", Shape: backend.Shape{-1, 3}}}
	for _, c := range []struct {
		name string
		fn   backend.Func
		want string
	}{
		{"ErfInv", func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			b.(backend.Scoper).SetScope(`layer "probit" (Lambda)`)
			return []backend.Value{b.ErfInv(in[0])}, nil
		}, `layer "probit" (Lambda): ONNX has no operator for ErfInv`},
		{"random", func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			b.(backend.Scoper).SetScope(`layer "noise" (GaussianNoise)`)
			return []backend.Value{b.Add(in[0], b.RandomNormal(in[0].Shape()))}, nil
		}, `layer "noise" (GaussianNoise): it draws random numbers`},
		{"per batch size", func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			b.(backend.Scoper).SetScope(`layer "rows" (Lambda)`)
			x := in[0]
			for i := 1; i < x.Shape()[0]; i++ { // one op per row
				x = b.Reshape(x, backend.Shape{x.Shape().Size()})
				x = b.Reshape(x, in[0].Shape())
			}
			return []backend.Value{x}, nil
		}, `layer "rows" (Lambda): the ops it computes depend on the length of a free dimension`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ONNX(&bytes.Buffer{}, c.fn, nil, inputs, []string{"y"}, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	for _, opset := range []int{16, 22} {
		if err := ONNX(&bytes.Buffer{}, dense, nil, inputs, []string{"y"}, Options{Opset: opset}); err == nil || !strings.Contains(err.Error(), "opsets 17 to 21") {
			t.Errorf("opset %d: got %v, want a refusal naming the opsets written", opset, err)
		}
	}
}

// A model whose weights do not fit in one protobuf file is refused, not
// written broken.
func TestTooLargeForOneFile(t *testing.T) {
	defer func(m int) { maxONNXBytes = m }(maxONNXBytes)
	maxONNXBytes = 16
	params := []Param{{Name: "dense/kernel", Shape: backend.Shape{3, 2}, Value: make([]float32, 6)}, {Name: "dense/bias", Shape: backend.Shape{2}, Value: make([]float32, 2)}}
	var buf bytes.Buffer
	err := ONNX(&buf, dense, params, []Input{{Name: "x", Shape: backend.Shape{-1, 3}}}, []string{"y"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "more than the 2 GB a protobuf file holds") || buf.Len() != 0 {
		t.Fatalf("got %v and %d bytes written, want a refusal and nothing written", err, buf.Len())
	}
}
