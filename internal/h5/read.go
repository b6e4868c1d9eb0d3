package h5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

// Info describes a dataset in a file being read: its path, element type
// and shape.
type Info struct {
	Path  string
	DType DType
	Shape []int

	elemSize  int // bytes per element in the file
	half      halfKind
	bigEndian bool
	unsigned  bool // for integers
	compact   []byte
	addr      uint64 // contiguous data
	size      uint64
}

// Len is the number of elements the shape declares.
func (i *Info) Len() int { return elements(i.Shape) }

// File is an HDF5 file opened for reading. Its groups and datasets are
// listed when it is opened (every structure checked against the file's
// size); values are read one dataset at a time.
type File struct {
	r        io.ReaderAt
	closer   io.Closer
	size     uint64
	datasets map[string]*Info
	groups   map[string]bool
	attrs    map[string]map[string][]string // string attributes by group
	visited  map[uint64]bool
	objects  int
	// globalHeaps caches the global heap collections read, by address.
	globalHeaps map[uint64]map[uint32][]byte
}

// Limits that keep a hostile file from making the reader loop or recurse
// without bound; real Keras files are far below them.
const (
	maxObjects    = 1 << 20
	maxDepth      = 64
	maxRank       = 32
	maxHeaderMsgs = 1 << 16
	maxChunks     = 1 << 10
)

// errFormat marks files that are corrupt or not in the classic layout.
var errFormat = errors.New("not a readable HDF5 file")

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errFormat, fmt.Sprintf(format, args...))
}

// Open opens the HDF5 file at path and lists its groups and datasets.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	file, err := OpenReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	file.closer = f
	return file, nil
}

// DeclaredSize reads the size an HDF5 file declares for itself (its
// superblock's end-of-file address) from its first 56 bytes; ok is false
// when they are not the start of a classic HDF5 file. It lets a reader
// check a compressed copy's size before inflating all of it.
func DeclaredSize(head []byte) (size uint64, ok bool) {
	if len(head) < 56 || !bytes.Equal(head[:8], signature) || head[8] > 1 || head[13] != 8 || head[14] != 8 {
		return 0, false
	}
	at := 24
	if head[8] == 1 {
		at += 4
	}
	return binary.LittleEndian.Uint64(head[at+16:]), true
}

// OpenReader reads an HDF5 file of size bytes from r. It understands the
// classic layout that h5py writes by default and that Keras's files use:
// superblock version 0 or 1, version 1 object headers, symbol-table
// groups, contiguous or compact datasets of integers and floats.
func OpenReader(r io.ReaderAt, size int64) (*File, error) {
	f := &File{r: r, size: uint64(size), datasets: map[string]*Info{}, groups: map[string]bool{}, attrs: map[string]map[string][]string{},
		visited: map[uint64]bool{}, globalHeaps: map[uint64]map[uint32][]byte{}}
	sb, err := f.read(0, 104)
	if err != nil || !bytes.Equal(sb[:8], signature) {
		return nil, bad("no HDF5 signature at the start of the file")
	}
	version := sb[8]
	if version > 1 {
		return nil, bad("superblock version %d: kerasgo reads the classic format (version 0 or 1) that h5py writes by default", version)
	}
	if sb[13] != 8 || sb[14] != 8 {
		return nil, bad("%d-byte offsets and %d-byte lengths: kerasgo reads files with 8-byte ones", sb[13], sb[14])
	}
	at := 24
	if version == 1 {
		at += 4
	}
	if base := binary.LittleEndian.Uint64(sb[at:]); base != 0 {
		return nil, bad("a base address of %d (a user block) is not supported", base)
	}
	rootEntry := sb[at+32 : at+72]
	root := binary.LittleEndian.Uint64(rootEntry[8:])
	if err := f.walkGroup(root, "", 0); err != nil {
		return nil, err
	}
	return f, nil
}

// Close releases the file.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// read returns n bytes at addr, checked against the file's size.
func (f *File) read(addr, n uint64) ([]byte, error) {
	if addr > f.size || n > f.size-addr {
		return nil, bad("a structure at %d of %d bytes lies outside the file (%d bytes)", addr, n, f.size)
	}
	buf := make([]byte, n)
	if _, err := f.r.ReadAt(buf, int64(addr)); err != nil {
		return nil, bad("reading %d bytes at %d: %v", n, addr, err)
	}
	return buf, nil
}

// message is one object header message.
type headerMessage struct {
	typ  uint16
	data []byte
}

// objectHeader reads a version 1 object header and its continuation
// chunks.
func (f *File) objectHeader(addr uint64) ([]headerMessage, error) {
	pre, err := f.read(addr, 16)
	if err != nil {
		return nil, err
	}
	if pre[0] != 1 {
		return nil, bad("object header version %d at %d: kerasgo reads version 1 headers (the classic format)", pre[0], addr)
	}
	nmsgs := int(binary.LittleEndian.Uint16(pre[2:]))
	type chunk struct{ addr, size uint64 }
	chunks := []chunk{{addr + 16, uint64(binary.LittleEndian.Uint32(pre[8:]))}}
	var msgs []headerMessage
	for c := 0; c < len(chunks); c++ {
		if c >= maxChunks {
			return nil, bad("object header at %d has too many continuation chunks", addr)
		}
		data, err := f.read(chunks[c].addr, chunks[c].size)
		if err != nil {
			return nil, err
		}
		for p := 0; p+8 <= len(data); {
			typ := binary.LittleEndian.Uint16(data[p:])
			size := int(binary.LittleEndian.Uint16(data[p+2:]))
			flags := data[p+4]
			p += 8
			if size > len(data)-p {
				return nil, bad("object header message of %d bytes overruns its chunk at %d", size, chunks[c].addr)
			}
			body := data[p : p+size]
			p += size
			if typ == 0x10 { // continuation
				if len(body) < 16 {
					return nil, bad("short continuation message at %d", addr)
				}
				chunks = append(chunks, chunk{binary.LittleEndian.Uint64(body), binary.LittleEndian.Uint64(body[8:])})
				continue
			}
			if flags&0x02 != 0 && (typ == msgDatatype || typ == msgDataspace) {
				return nil, bad("a shared (committed) datatype or dataspace is not supported")
			}
			msgs = append(msgs, headerMessage{typ, body})
			if len(msgs) > maxHeaderMsgs {
				return nil, bad("object header at %d has too many messages", addr)
			}
		}
	}
	if len(msgs) > nmsgs+len(chunks) { // nmsgs counts continuations too; allow slack for NIL
		return nil, bad("object header at %d holds more messages (%d) than it declares (%d)", addr, len(msgs), nmsgs)
	}
	return msgs, nil
}

func (f *File) walkGroup(addr uint64, path string, depth int) error {
	if depth > maxDepth {
		return bad("groups nested deeper than %d", maxDepth)
	}
	if f.visited[addr] {
		return bad("the group at %d is reachable twice (a loop or hard link)", addr)
	}
	f.visited[addr] = true
	msgs, err := f.objectHeader(addr)
	if err != nil {
		return err
	}
	var stab []byte
	for _, m := range msgs {
		if m.typ == msgSymTable {
			stab = m.data
		}
	}
	if len(stab) < 16 {
		return bad("object %q is not a symbol-table group (new-style groups need HDF5's newer format, which kerasgo does not read)", "/"+path)
	}
	if path != "" {
		f.groups[path] = true
	}
	if err := f.readAttributes(msgs, path); err != nil {
		return err
	}
	heap, err := f.localHeap(binary.LittleEndian.Uint64(stab[8:]))
	if err != nil {
		return err
	}
	var entries [][2]uint64 // name offset, object header address
	if err := f.btree(binary.LittleEndian.Uint64(stab), 0, &entries); err != nil {
		return err
	}
	for _, e := range entries {
		name, err := heapString(heap, e[0])
		if err != nil {
			return err
		}
		if name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
			return bad("invalid link name %q", name)
		}
		child := name
		if path != "" {
			child = path + "/" + name
		}
		if f.objects++; f.objects > maxObjects {
			return bad("more than %d objects", maxObjects)
		}
		if err := f.object(e[1], child, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// object reads a group or a dataset.
func (f *File) object(addr uint64, path string, depth int) error {
	msgs, err := f.objectHeader(addr)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.typ == msgSymTable {
			return f.walkGroup(addr, path, depth)
		}
	}
	info, err := datasetInfo(msgs, path, f.size)
	if err != nil {
		return err
	}
	if info != nil {
		f.datasets[path] = info
	}
	return nil
}

func (f *File) localHeap(addr uint64) ([]byte, error) {
	h, err := f.read(addr, heapHdrSize)
	if err != nil {
		return nil, err
	}
	if string(h[:4]) != "HEAP" {
		return nil, bad("no local heap at %d", addr)
	}
	return f.read(binary.LittleEndian.Uint64(h[24:]), binary.LittleEndian.Uint64(h[8:]))
}

func heapString(heap []byte, off uint64) (string, error) {
	if off >= uint64(len(heap)) {
		return "", bad("a name at heap offset %d is outside the heap (%d bytes)", off, len(heap))
	}
	end := bytes.IndexByte(heap[off:], 0)
	if end < 0 {
		return "", bad("an unterminated name in a local heap")
	}
	return string(heap[off : off+uint64(end)]), nil
}

// btree collects the symbol table entries under a group's B-tree node.
func (f *File) btree(addr uint64, depth int, out *[][2]uint64) error {
	if depth > maxDepth {
		return bad("a group B-tree deeper than %d", maxDepth)
	}
	h, err := f.read(addr, btreeHdrSize)
	if err != nil {
		return err
	}
	if string(h[:4]) != "TREE" || h[4] != 0 {
		return bad("no group B-tree node at %d", addr)
	}
	level, used := h[5], uint64(binary.LittleEndian.Uint16(h[6:]))
	body, err := f.read(addr+btreeHdrSize, used*16+8)
	if err != nil {
		return err
	}
	for i := uint64(0); i < used; i++ {
		child := binary.LittleEndian.Uint64(body[8+16*i:])
		if f.visited[child] {
			return bad("the B-tree node or symbol table at %d is reachable twice", child)
		}
		f.visited[child] = true
		if level > 0 {
			if err := f.btree(child, depth+1, out); err != nil {
				return err
			}
			continue
		}
		if err := f.snod(child, out); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) snod(addr uint64, out *[][2]uint64) error {
	h, err := f.read(addr, 8)
	if err != nil {
		return err
	}
	if string(h[:4]) != "SNOD" || h[4] != 1 {
		return bad("no symbol table node at %d", addr)
	}
	n := uint64(binary.LittleEndian.Uint16(h[6:]))
	body, err := f.read(addr+8, n*entrySize)
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		e := body[i*entrySize:]
		*out = append(*out, [2]uint64{binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])})
	}
	return nil
}

// datasetInfo reads a dataset's shape, type and storage from its header
// messages; an object that is neither group nor dataset gives nil.
func datasetInfo(msgs []headerMessage, path string, fileSize uint64) (*Info, error) {
	var space, dtype, layout []byte
	for _, m := range msgs {
		switch m.typ {
		case msgDataspace:
			space = m.data
		case msgDatatype:
			dtype = m.data
		case msgLayout:
			layout = m.data
		case 0x000B:
			return nil, bad("dataset %q is compressed or filtered: kerasgo reads uncompressed datasets, as Keras writes them", path)
		case 0x0007:
			return nil, bad("dataset %q keeps its data in external files", path)
		}
	}
	if space == nil && dtype == nil && layout == nil {
		return nil, nil // a committed datatype or another kind of object
	}
	if space == nil || dtype == nil || layout == nil {
		return nil, bad("dataset %q lacks a dataspace, datatype or layout", path)
	}
	info := &Info{Path: path}
	// Dataspace, version 1 or 2.
	if len(space) < 4 {
		return nil, bad("dataset %q: short dataspace", path)
	}
	rank := int(space[1])
	dimsAt := 8
	switch space[0] {
	case 1:
	case 2:
		dimsAt = 4
		if space[3] == 2 {
			return nil, bad("dataset %q has a null dataspace", path)
		}
	default:
		return nil, bad("dataset %q: dataspace version %d", path, space[0])
	}
	if rank > maxRank || len(space) < dimsAt+8*rank {
		return nil, bad("dataset %q: dataspace of rank %d in %d bytes", path, rank, len(space))
	}
	elems := uint64(1)
	for i := 0; i < rank; i++ {
		d := binary.LittleEndian.Uint64(space[dimsAt+8*i:])
		if d > fileSize || (d > 0 && elems > fileSize/d) {
			return nil, bad("dataset %q declares a dimension of %d, impossible in a file of %d bytes", path, d, fileSize)
		}
		elems *= d
		info.Shape = append(info.Shape, int(d))
	}
	// Datatype.
	if len(dtype) < 8 {
		return nil, bad("dataset %q: short datatype", path)
	}
	class, bits := dtype[0]&0x0f, dtype[1]
	info.elemSize = int(binary.LittleEndian.Uint32(dtype[4:]))
	info.bigEndian = bits&0x01 != 0
	switch {
	case class == 1 && info.elemSize == 4 && bits&0x40 == 0:
		info.DType = Float32
	case class == 1 && info.elemSize == 8 && bits&0x40 == 0:
		info.DType = Float64
	case class == 0 && (info.elemSize == 1 || info.elemSize == 2 || info.elemSize == 4 || info.elemSize == 8):
		info.DType, info.unsigned = Int64, bits&0x08 == 0
	case class == 1 && info.elemSize == 2 && bits&0x40 == 0:
		info.DType, info.half = Float32, ieeeHalf // a float16 variable; read exactly as float32
	case class == 5 && info.elemSize == 2:
		// Keras writes a bfloat16 variable as 2-byte opaque values (h5py
		// has no bfloat16) with the attribute dtype="bfloat16"; the only
		// 2-byte opaque type in a Keras weights file. Read exactly as float32.
		info.DType, info.half = Float32, brainHalf
	default:
		return nil, bad("dataset %q has elements of class %d and %d bytes: kerasgo reads float16, bfloat16, float32, float64 and integer datasets", path, class, info.elemSize)
	}
	need := elems * uint64(info.elemSize)
	// Layout, version 3.
	if len(layout) < 2 || layout[0] != 3 {
		return nil, bad("dataset %q: data layout message version %d (kerasgo reads version 3)", path, layout[0])
	}
	switch layout[1] {
	case 0: // compact
		if len(layout) < 4 {
			return nil, bad("dataset %q: short compact layout", path)
		}
		n := int(binary.LittleEndian.Uint16(layout[2:]))
		if len(layout) < 4+n || uint64(n) != need {
			return nil, bad("dataset %q: compact data of %d bytes for %d elements of %d bytes", path, n, elems, info.elemSize)
		}
		info.compact = layout[4 : 4+n]
	case 1: // contiguous
		if len(layout) < 18 {
			return nil, bad("dataset %q: short contiguous layout", path)
		}
		info.addr, info.size = binary.LittleEndian.Uint64(layout[2:]), binary.LittleEndian.Uint64(layout[10:])
		if info.size != need {
			return nil, bad("dataset %q: shape %v of %d-byte elements needs %d bytes, its storage holds %d", path, info.Shape, info.elemSize, need, info.size)
		}
		if need > 0 && (info.addr > fileSize || need > fileSize-info.addr) {
			return nil, bad("dataset %q: its %d bytes at %d lie outside the file (%d bytes)", path, need, info.addr, fileSize)
		}
	case 2:
		return nil, bad("dataset %q is chunked: kerasgo reads contiguous datasets, as Keras writes them", path)
	default:
		return nil, bad("dataset %q: layout class %d", path, layout[1])
	}
	return info, nil
}

// Dataset returns the dataset at a slash-separated path, or nil.
func (f *File) Dataset(path string) *Info { return f.datasets[strings.Trim(path, "/")] }

// HasGroup reports whether the file has a group at path.
func (f *File) HasGroup(path string) bool { return f.groups[strings.Trim(path, "/")] }

// Children returns the names of the datasets and groups directly below the
// group at path, sorted.
func (f *File) Children(path string) []string {
	prefix := strings.Trim(path, "/")
	if prefix != "" {
		prefix += "/"
	}
	seen := map[string]bool{}
	add := func(p string) {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			seen[rest] = true
		}
	}
	for p := range f.datasets {
		add(p)
	}
	for p := range f.groups {
		add(p)
	}
	return sortedKeys(seen)
}

// StoredType names the element type as the file stores it, which DType
// widens: "int32", "uint8", "float16", "bfloat16", ... (NumPy's names).
func (info *Info) StoredType() string {
	switch {
	case info.half == ieeeHalf:
		return "float16"
	case info.half == brainHalf:
		return "bfloat16"
	case info.DType == Int64:
		name := fmt.Sprintf("int%d", 8*info.elemSize)
		if info.unsigned {
			name = "u" + name
		}
		return name
	}
	return info.DType.String()
}

// Paths returns the paths of every dataset, sorted.
func (f *File) Paths() []string { return sortedKeys(f.datasets) }

// Read returns the values of the dataset at path (floats as their own
// type, integers as Int64). Its size was checked against the file when
// the file was opened.
func (f *File) Read(path string) (*Dataset, error) {
	info := f.Dataset(path)
	if info == nil {
		return nil, fmt.Errorf("no dataset %q", path)
	}
	raw := info.compact
	if raw == nil && info.size > 0 {
		var err error
		if raw, err = f.read(info.addr, info.size); err != nil {
			return nil, fmt.Errorf("dataset %q: %w", path, err)
		}
	}
	n := info.Len()
	var order binary.ByteOrder = binary.LittleEndian
	if info.bigEndian {
		order = binary.BigEndian
	}
	d := &Dataset{Shape: append([]int(nil), info.Shape...), DType: info.DType, Stored: info.StoredType()}
	switch {
	case info.half != 0:
		d.Float32 = make([]float32, n)
		for i := range d.Float32 {
			d.Float32[i] = info.half.float32(order.Uint16(raw[2*i:]))
		}
	case info.DType == Float32:
		d.Float32 = make([]float32, n)
		for i := range d.Float32 {
			d.Float32[i] = math.Float32frombits(order.Uint32(raw[4*i:]))
		}
	case info.DType == Float64:
		d.Float64 = make([]float64, n)
		for i := range d.Float64 {
			d.Float64[i] = math.Float64frombits(order.Uint64(raw[8*i:]))
		}
	case info.DType == Int64:
		d.Int64 = make([]int64, n)
		for i := range d.Int64 {
			d.Int64[i] = readInt(raw[i*info.elemSize:], info.elemSize, order, info.unsigned)
		}
	}
	return d, nil
}

func readInt(b []byte, size int, order binary.ByteOrder, unsigned bool) int64 {
	switch size {
	case 1:
		if unsigned {
			return int64(b[0])
		}
		return int64(int8(b[0]))
	case 2:
		if unsigned {
			return int64(order.Uint16(b))
		}
		return int64(int16(order.Uint16(b)))
	case 4:
		if unsigned {
			return int64(order.Uint32(b))
		}
		return int64(int32(order.Uint32(b)))
	}
	return int64(order.Uint64(b))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// halfKind is a 2-byte float format a dataset holds, read as float32
// (both are exactly representable in float32).
type halfKind uint8

const (
	ieeeHalf  halfKind = iota + 1 // IEEE 754 binary16 (numpy's float16)
	brainHalf                     // bfloat16: a float32's upper 16 bits
)

func (k halfKind) float32(h uint16) float32 {
	if k == brainHalf {
		return math.Float32frombits(uint32(h) << 16)
	}
	sign := uint32(h>>15) << 31
	exp, frac := uint32(h>>10)&0x1f, uint32(h)&0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac · 2^-24
		v := float32(frac) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}
