package export

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file writes the few messages of onnx.proto an inference graph
// needs, field by field with protowire (the wire format of Google's
// protobuf module), rather than through code generated from onnx.proto:
// the writer is small, and kerasgo stays free of a generated copy of a
// schema that changes with every ONNX release. The field numbers are
// onnx.proto's (ONNX 1.23): TestWrittenModelReadsBack reads them back,
// and TestExportONNXCatalogue (package keras) runs onnx's full checker
// and onnxruntime on what is written.

// message is a protobuf message being written.
type message []byte

func (m *message) varint(field protowire.Number, v uint64) {
	*m = protowire.AppendTag(*m, field, protowire.VarintType)
	*m = protowire.AppendVarint(*m, v)
}

func (m *message) int64(field protowire.Number, v int64) { m.varint(field, uint64(v)) }

func (m *message) bytes(field protowire.Number, b []byte) {
	*m = protowire.AppendTag(*m, field, protowire.BytesType)
	*m = protowire.AppendBytes(*m, b)
}

func (m *message) string(field protowire.Number, s string) {
	*m = protowire.AppendTag(*m, field, protowire.BytesType)
	*m = protowire.AppendString(*m, s)
}

func (m *message) embed(field protowire.Number, sub message) { m.bytes(field, sub) }

// packedInt64s writes a repeated int64 field packed, as proto3 does.
func (m *message) packedInt64s(field protowire.Number, vs []int64) {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(v))
	}
	m.bytes(field, b)
}

// The field numbers of onnx.proto.
const (
	modelIRVersion   = 1
	modelProducer    = 2
	modelProducerVer = 3
	modelDocString   = 6
	modelGraph       = 7
	modelOpsetImport = 8

	opsetDomain  = 1
	opsetVersion = 2

	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphInput       = 11
	graphOutput      = 12

	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5
	nodeDocString = 6

	attrName   = 1
	attrInt    = 3
	attrString = 4
	attrTens   = 5
	attrInts   = 8
	attrType   = 20

	tensorDims     = 1
	tensorDataType = 2
	tensorName     = 8
	tensorRawData  = 9

	valueInfoName = 1
	valueInfoType = 2

	typeTensor       = 1
	tensorTypeElem   = 1
	tensorTypeShape  = 2
	shapeDim         = 1
	dimValue         = 1
	dimParam         = 2
	attrTypeInt      = 2
	attrTypeString   = 3
	attrTypeTensor   = 4
	attrTypeInts     = 7
	onnxFloat        = 1
	onnxInt32        = 6
	onnxInt64        = 7
	onnxBool         = 9
	onnxDouble       = 11
	onnxDefaultOpset = 17
)

// tensorProto is an ONNX TensorProto holding raw little-endian data.
type tensorProto struct {
	name     string
	dims     []int64
	dataType int
	raw      []byte
}

func (t tensorProto) encode() message {
	var m message
	if len(t.dims) > 0 {
		m.packedInt64s(tensorDims, t.dims)
	}
	m.int64(tensorDataType, int64(t.dataType))
	if t.name != "" {
		m.string(tensorName, t.name)
	}
	m.bytes(tensorRawData, t.raw)
	return m
}

func float32Raw(vs []float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func float64Raw(vs []float64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

func int64Raw(vs []int64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// attribute is one attribute of a node.
type attribute struct {
	name   string
	kind   int // attrTypeInt, attrTypeInts, attrTypeString, attrTypeTensor
	i      int64
	ints   []int64
	s      string
	tensor *tensorProto
}

func intAttr(name string, v int) attribute {
	return attribute{name: name, kind: attrTypeInt, i: int64(v)}
}

func intsAttr(name string, vs []int) attribute {
	a := attribute{name: name, kind: attrTypeInts, ints: make([]int64, len(vs))}
	for i, v := range vs {
		a.ints[i] = int64(v)
	}
	return a
}

func (a attribute) encode() message {
	var m message
	m.string(attrName, a.name)
	m.int64(attrType, int64(a.kind))
	switch a.kind {
	case attrTypeInt:
		m.int64(attrInt, a.i)
	case attrTypeInts:
		m.packedInt64s(attrInts, a.ints)
	case attrTypeString:
		m.string(attrString, a.s)
	case attrTypeTensor:
		m.embed(attrTens, a.tensor.encode())
	}
	return m
}

// nodeProto is one ONNX node.
type nodeProto struct {
	opType  string
	name    string
	inputs  []string
	outputs []string
	attrs   []attribute
	doc     string
}

func (n nodeProto) encode() message {
	var m message
	for _, in := range n.inputs {
		m.string(nodeInput, in)
	}
	for _, out := range n.outputs {
		m.string(nodeOutput, out)
	}
	m.string(nodeName, n.name)
	m.string(nodeOpType, n.opType)
	for _, a := range n.attrs {
		m.embed(nodeAttribute, a.encode())
	}
	if n.doc != "" {
		m.string(nodeDocString, n.doc)
	}
	return m
}

// valueInfo is a graph input's or output's name, element type and shape.
type valueInfo struct {
	name     string
	elemType int
	dims     []dimension
}

// dimension is a length, or the name of a free dimension.
type dimension struct {
	length int
	name   string
}

func (v valueInfo) encode() message {
	var shape message
	for _, d := range v.dims {
		var dim message
		if d.name != "" {
			dim.string(dimParam, d.name)
		} else {
			dim.int64(dimValue, int64(d.length))
		}
		shape.embed(shapeDim, dim)
	}
	var tt message
	tt.int64(tensorTypeElem, int64(v.elemType))
	tt.embed(tensorTypeShape, shape)
	var typ message
	typ.embed(typeTensor, tt)
	var m message
	m.string(valueInfoName, v.name)
	m.embed(valueInfoType, typ)
	return m
}

// irVersion is the oldest ONNX IR version that has the opset, so that the
// oldest runtimes that run the opset read the file: IR 8 (ONNX 1.13) for
// opsets 17 and 18, 9 (ONNX 1.15) for 19 and 20, 10 (ONNX 1.16) for 21.
func irVersion(opset int) int64 {
	switch {
	case opset <= 18:
		return 8
	case opset <= 20:
		return 9
	}
	return 10
}

// modelProto is a whole ONNX model: one graph and its opset.
type modelProto struct {
	graphName    string
	doc          string
	opset        int
	nodes        []nodeProto
	initializers []tensorProto
	inputs       []valueInfo
	outputs      []valueInfo
	producerVer  string
}

func (p *modelProto) encode() []byte {
	var g message
	for _, n := range p.nodes {
		g.embed(graphNode, n.encode())
	}
	g.string(graphName, p.graphName)
	for _, t := range p.initializers {
		g.embed(graphInitializer, t.encode())
	}
	for _, in := range p.inputs {
		g.embed(graphInput, in.encode())
	}
	for _, out := range p.outputs {
		g.embed(graphOutput, out.encode())
	}
	var opset message
	opset.string(opsetDomain, "")
	opset.int64(opsetVersion, int64(p.opset))
	var m message
	m.int64(modelIRVersion, irVersion(p.opset))
	m.string(modelProducer, "kerasgo")
	if p.producerVer != "" {
		m.string(modelProducerVer, p.producerVer)
	}
	if p.doc != "" {
		m.string(modelDocString, p.doc)
	}
	m.embed(modelGraph, g)
	m.embed(modelOpsetImport, opset)
	return m
}
