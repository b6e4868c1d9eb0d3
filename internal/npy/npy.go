package npy

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// Array is one NumPy array: its shape and, for a numeric dtype, its
// values as float64 in C order; for an object array, its elements, each
// a list (or array) of integers, as IMDB's and Reuters's word ids (other
// object arrays are refused).
type Array struct {
	Shape   []int
	DType   string // NumPy's descr without the byte order: "f8", "u1", "O", ...
	Data    []float64
	Objects [][]int64
}

// Len is the array's first dimension (its element count for rank 0).
func (a Array) Len() int {
	if len(a.Shape) == 0 {
		return 1
	}
	return a.Shape[0]
}

var headerField = regexp.MustCompile(`'(descr|fortran_order|shape)'\s*:\s*('[^']*'|True|False|\([^)]*\))`)

// Read decodes one .npy file.
func Read(b []byte) (Array, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return Array{}, errors.New("not a .npy file (no \\x93NUMPY magic)")
	}
	major := b[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return Array{}, errors.New("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return Array{}, fmt.Errorf("unsupported .npy version %d", major)
	}
	if start+hlen > len(b) {
		return Array{}, errors.New("truncated .npy header")
	}
	header := string(b[start : start+hlen])
	fields := map[string]string{}
	for _, m := range headerField.FindAllStringSubmatch(header, -1) {
		fields[m[1]] = m[2]
	}
	descr := strings.Trim(fields["descr"], "'")
	if descr == "" || fields["shape"] == "" {
		return Array{}, fmt.Errorf("cannot read the .npy header %q", header)
	}
	if fields["fortran_order"] == "True" {
		return Array{}, errors.New("a Fortran-ordered .npy array is not supported")
	}
	shape, err := parseShape(fields["shape"])
	if err != nil {
		return Array{}, err
	}
	body := b[start+hlen:]
	if descr == "|O" || descr == "O" {
		v, err := Unpickle(bytes.NewReader(body))
		if err != nil {
			return Array{}, fmt.Errorf("reading the pickled object array: %w", err)
		}
		nd, ok := v.(*NDArray)
		if !ok {
			return Array{}, fmt.Errorf("the pickle holds a %T, not a NumPy array", v)
		}
		return nd.Array()
	}
	return decode(descr, shape, body)
}

func parseShape(s string) ([]int, error) {
	s = strings.Trim(s, "()")
	var shape []int
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(p, "L"))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad .npy shape (%s)", s)
		}
		shape = append(shape, n)
	}
	return shape, nil
}

// decode reads raw values of a numeric descr ("<f8", "|u1", ...).
func decode(descr string, shape []int, raw []byte) (Array, error) {
	order, kind := binary.ByteOrder(binary.LittleEndian), descr
	switch descr[0] {
	case '<', '|', '=':
		kind = descr[1:]
	case '>':
		order, kind = binary.BigEndian, descr[1:]
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	size, err := strconv.Atoi(kind[1:])
	if err != nil || size <= 0 {
		return Array{}, fmt.Errorf("unsupported .npy dtype %q", descr)
	}
	if len(raw) < n*size {
		return Array{}, fmt.Errorf("the array (%v of %s) needs %d bytes, the file has %d", shape, descr, n*size, len(raw))
	}
	out := make([]float64, n)
	for i := range out {
		b := raw[i*size : (i+1)*size]
		switch {
		case kind == "f8":
			out[i] = math.Float64frombits(order.Uint64(b))
		case kind == "f4":
			out[i] = float64(math.Float32frombits(order.Uint32(b)))
		case kind == "i8":
			out[i] = float64(int64(order.Uint64(b)))
		case kind == "i4":
			out[i] = float64(int32(order.Uint32(b)))
		case kind == "i2":
			out[i] = float64(int16(order.Uint16(b)))
		case kind == "i1":
			out[i] = float64(int8(b[0]))
		case kind == "u8":
			out[i] = float64(order.Uint64(b))
		case kind == "u4":
			out[i] = float64(order.Uint32(b))
		case kind == "u2":
			out[i] = float64(order.Uint16(b))
		case kind == "u1", kind == "b1":
			out[i] = float64(b[0])
		default:
			return Array{}, fmt.Errorf("unsupported .npy dtype %q", descr)
		}
	}
	return Array{Shape: shape, DType: kind, Data: out}, nil
}

// ReadNPZ reads every .npy member of an .npz archive, by name without
// ".npy", as Keras's load_npz.
func ReadNPZ(path string) (map[string]Array, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := map[string]Array{}
	for _, f := range z.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		a, err := Read(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		out[name] = a
	}
	return out, nil
}

// Unpickle decodes a pickle with Keras's RestrictedUnpickler's classes:
// numpy arrays become *NDArray, Python dicts *types.Dict, lists
// *types.List, strings string and bytes []byte (Python 2 strings, as
// CIFAR's files hold them, come as string).
func Unpickle(r io.Reader) (any, error) {
	u := pickle.NewUnpickler(r)
	u.FindClass = func(module, name string) (any, error) {
		switch module + "." + name {
		case "numpy.ndarray":
			return ndarrayClass{}, nil
		case "numpy.dtype":
			return dtypeClass{}, nil
		case "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct":
			return reconstruct{}, nil
		}
		return nil, fmt.Errorf("refusing to deserialize %s.%s while loading a Keras dataset: the file may be corrupted or malicious", module, name)
	}
	return u.Load()
}

type ndarrayClass struct{}

type reconstruct struct{}

// Call makes the empty array numpy.core.multiarray._reconstruct makes.
func (reconstruct) Call(args ...any) (any, error) { return &NDArray{}, nil }

type dtypeClass struct{}

// Call makes numpy.dtype(descr, ...).
func (dtypeClass) Call(args ...any) (any, error) {
	if len(args) == 0 {
		return nil, errors.New("numpy.dtype with no arguments")
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("numpy.dtype(%v): want a string", args[0])
	}
	return &DType{Descr: s, ByteOrder: "<"}, nil
}

// DType is a pickled numpy.dtype: its descr ("u1", "f8", "O8") and byte
// order.
type DType struct {
	Descr, ByteOrder string
}

// PySetState takes dtype's state (version, byte order, ...).
func (d *DType) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() < 2 {
		return fmt.Errorf("numpy.dtype state %v", state)
	}
	if bo, ok := t.Get(1).(string); ok {
		d.ByteOrder = bo
	}
	return nil
}

// NDArray is a pickled numpy.ndarray.
type NDArray struct {
	Shape   []int
	DType   *DType
	raw     []byte
	objects []any
}

// PySetState takes ndarray's state (version, shape, dtype, is_fortran,
// data): the raw bytes of a numeric array, or a list of an object
// array's elements.
func (a *NDArray) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() != 5 {
		return fmt.Errorf("numpy.ndarray state %v: want (version, shape, dtype, is_fortran, data)", state)
	}
	shape, ok := t.Get(1).(*types.Tuple)
	if !ok {
		return fmt.Errorf("numpy.ndarray shape %v", t.Get(1))
	}
	for i := range shape.Len() {
		n, err := toInt(shape.Get(i))
		if err != nil {
			return err
		}
		a.Shape = append(a.Shape, int(n))
	}
	if a.DType, ok = t.Get(2).(*DType); !ok {
		return fmt.Errorf("numpy.ndarray dtype %v", t.Get(2))
	}
	if fortran, _ := t.Get(3).(bool); fortran {
		return errors.New("a Fortran-ordered pickled array is not supported")
	}
	switch d := t.Get(4).(type) {
	case []byte:
		a.raw = d
	case string:
		a.raw = []byte(d)
	case *types.List:
		for i := range d.Len() {
			a.objects = append(a.objects, d.Get(i))
		}
	default:
		return fmt.Errorf("numpy.ndarray data of type %T", d)
	}
	return nil
}

// Array converts the pickled array: numeric values, or object elements
// (lists and arrays of integers as []int64).
func (a *NDArray) Array() (Array, error) {
	if a.DType == nil {
		return Array{}, errors.New("a numpy.ndarray without its state")
	}
	if strings.HasPrefix(a.DType.Descr, "O") {
		out := Array{Shape: a.Shape, DType: "O"}
		for _, o := range a.objects {
			v, err := element(o)
			if err != nil {
				return Array{}, err
			}
			out.Objects = append(out.Objects, v)
		}
		return out, nil
	}
	return decode(a.DType.ByteOrder+a.DType.Descr, a.Shape, a.raw)
}

// element converts an object array's element, a list or an integer
// array, to []int64.
func element(o any) ([]int64, error) {
	switch v := o.(type) {
	case *types.List:
		out := make([]int64, v.Len())
		for i := range out {
			n, err := toInt(v.Get(i))
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case *NDArray:
		arr, err := v.Array()
		if err != nil {
			return nil, err
		}
		out := make([]int64, len(arr.Data))
		for i, x := range arr.Data {
			out[i] = int64(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("an object array's element is a %T, not a list of integers", o)
}

func toInt(v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	case *big.Int:
		if n.IsInt64() {
			return n.Int64(), nil
		}
	case bool:
		if n {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("%v (%T) is not an integer", v, v)
}
