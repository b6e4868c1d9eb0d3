package mnist

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxElements bounds the size an IDX header may declare (1 GiB of bytes),
// so a corrupt or hostile header cannot make ReadIDX allocate without limit.
const MaxElements = 1 << 30

// IDX is an IDX file of unsigned bytes: its dimensions and its data in
// row-major order.
type IDX struct {
	Dims []int
	Data []byte
}

// ErrFormat is wrapped by every error about a malformed IDX file.
var ErrFormat = errors.New("not a valid IDX file")

// ReadIDX reads an IDX file of unsigned bytes (type 0x08), raw or
// gzip-compressed. The header is validated before the data is read, and
// the data is read only as it arrives, so a truncated file costs no more
// memory than its real size.
func ReadIDX(r io.Reader) (*IDX, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: bad gzip stream: %v", ErrFormat, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var head [4]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return nil, fmt.Errorf("%w: file too short for a header (%v)", ErrFormat, err)
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, fmt.Errorf("%w: magic number starts %#x %#x, want 0 0", ErrFormat, head[0], head[1])
	}
	if head[2] != 0x08 {
		return nil, fmt.Errorf("%w: element type %#x, want 0x08 (unsigned byte)", ErrFormat, head[2])
	}
	nd := int(head[3])
	if nd < 1 || nd > 4 {
		return nil, fmt.Errorf("%w: %d dimensions, want 1 to 4", ErrFormat, nd)
	}
	dims := make([]int, nd)
	total := 1
	for i := range dims {
		var d uint32
		if err := binary.Read(br, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("%w: truncated header (%v)", ErrFormat, err)
		}
		if d == 0 || uint64(d) > MaxElements || uint64(total)*uint64(d) > MaxElements {
			return nil, fmt.Errorf("%w: dimensions %v declare more than %d values or an empty axis", ErrFormat, append(dims[:i], int(d)), MaxElements)
		}
		dims[i] = int(d)
		total *= int(d)
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(br, int64(total)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading data: %v", ErrFormat, err)
	}
	switch {
	case n < int64(total):
		return nil, fmt.Errorf("%w: truncated: header declares %v = %d values, file holds %d", ErrFormat, dims, total, n)
	case n > int64(total):
		return nil, fmt.Errorf("%w: trailing data after the %d values the header declares", ErrFormat, total)
	}
	return &IDX{Dims: dims, Data: buf.Bytes()}, nil
}

// ReadIDXFile reads an IDX file (raw or gzip) from path.
func ReadIDXFile(path string) (*IDX, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx, err := ReadIDX(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return idx, nil
}
