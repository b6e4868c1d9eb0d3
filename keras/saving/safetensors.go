package saving

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Tensor is a named float32 array in a .safetensors file.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

// maxHeaderSize bounds a safetensors header, as the format's reference
// implementation does (100 MB).
const maxHeaderSize = 100 << 20

type tensorHeader struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// WriteSafetensors writes tensors (float32, "F32") to path in the
// safetensors format (https://github.com/huggingface/safetensors): an
// 8-byte little-endian header size, a JSON header giving each tensor's
// dtype, shape and byte range, then the data. Atomic, like WriteAtomic.
func WriteSafetensors(path string, tensors []Tensor, metadata map[string]string) error {
	sorted := append([]Tensor(nil), tensors...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	for _, t := range sorted {
		n := int64(1)
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			n *= int64(d)
			shape[i] = int64(d)
		}
		if n != int64(len(t.Data)) {
			return fmt.Errorf("safetensors: tensor %q: shape %v needs %d values, has %d", t.Name, t.Shape, n, len(t.Data))
		}
		if _, dup := header[t.Name]; dup || t.Name == "__metadata__" {
			return fmt.Errorf("safetensors: tensor name %q is used twice or reserved", t.Name)
		}
		header[t.Name] = tensorHeader{DType: "F32", Shape: shape, DataOffsets: []int64{off, off + 4*n}}
		off += 4 * n
	}
	js, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(js)%8 != 0 { // the format recommends aligning the data to 8 bytes
		js = append(js, ' ')
	}
	return WriteAtomic(path, func(w io.Writer) error {
		if err := binary.Write(w, binary.LittleEndian, uint64(len(js))); err != nil {
			return err
		}
		if _, err := w.Write(js); err != nil {
			return err
		}
		var buf [4]byte
		for _, t := range sorted {
			for _, v := range t.Data {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
				if _, err := w.Write(buf[:]); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ReadSafetensors reads a .safetensors file of float32 tensors. Sizes,
// shapes and byte ranges are checked against the file before anything is
// allocated: the ranges must tile the data exactly, as the format requires.
func ReadSafetensors(path string) (map[string]Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("no weights file %s: %v", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readSafetensors(f, st.Size(), path)
}

func readSafetensors(r io.ReaderAt, size int64, path string) (map[string]Tensor, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s is not a valid safetensors file: %s", path, fmt.Sprintf(format, args...))
	}
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, bad("too short (%d bytes)", size)
	}
	hlen := binary.LittleEndian.Uint64(lenBuf[:])
	if hlen > maxHeaderSize || int64(hlen) > size-8 {
		return nil, bad("header of %d bytes in a file of %d", hlen, size)
	}
	hdr := make([]byte, hlen)
	if _, err := r.ReadAt(hdr, 8); err != nil {
		return nil, bad("reading the header: %v", err)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if err := dec.Decode(&raw); err != nil {
		return nil, bad("header: %v", err)
	}
	dataStart := 8 + int64(hlen)
	dataSize := size - dataStart
	type span struct {
		name       string
		begin, end int64
		shape      []int
	}
	var spans []span
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var th tensorHeader
		if err := json.Unmarshal(msg, &th); err != nil {
			return nil, bad("tensor %q: %v", name, err)
		}
		if th.DType != "F32" {
			return nil, bad("tensor %q has dtype %s: kerasgo reads F32 weights", name, th.DType)
		}
		if len(th.DataOffsets) != 2 || th.DataOffsets[0] < 0 || th.DataOffsets[1] < th.DataOffsets[0] || th.DataOffsets[1] > dataSize {
			return nil, bad("tensor %q: byte range %v outside the %d bytes of data", name, th.DataOffsets, dataSize)
		}
		n := int64(1)
		shape := make([]int, len(th.Shape))
		for i, d := range th.Shape {
			if d < 0 || d > dataSize {
				return nil, bad("tensor %q: impossible shape %v", name, th.Shape)
			}
			n *= d
			if n > dataSize {
				return nil, bad("tensor %q: shape %v needs more data than the file holds", name, th.Shape)
			}
			shape[i] = int(d)
		}
		if 4*n != th.DataOffsets[1]-th.DataOffsets[0] {
			return nil, bad("tensor %q: shape %v needs %d bytes, its range holds %d", name, th.Shape, 4*n, th.DataOffsets[1]-th.DataOffsets[0])
		}
		spans = append(spans, span{name, th.DataOffsets[0], th.DataOffsets[1], shape})
	}
	sort.Slice(spans, func(i, j int) bool {
		return spans[i].begin < spans[j].begin || (spans[i].begin == spans[j].begin && spans[i].end < spans[j].end)
	})
	var at int64
	for _, s := range spans {
		if s.begin != at {
			return nil, bad("tensor %q starts at byte %d, expected %d: ranges overlap or leave holes", s.name, s.begin, at)
		}
		at = s.end
	}
	if at != dataSize {
		return nil, bad("the tensors cover %d of %d data bytes", at, dataSize)
	}
	out := make(map[string]Tensor, len(spans))
	for _, s := range spans {
		buf := make([]byte, s.end-s.begin)
		if _, err := r.ReadAt(buf, dataStart+s.begin); err != nil {
			return nil, bad("reading tensor %q: %v", s.name, err)
		}
		vals := make([]float32, len(buf)/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		out[s.name] = Tensor{Name: s.name, Shape: s.shape, Data: vals}
	}
	return out, nil
}
