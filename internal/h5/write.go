package h5

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The classic HDF5 layout (format spec "version 0" structures), with 8-byte
// offsets and lengths, little-endian.
const (
	undefAddr    = math.MaxUint64
	superSize    = 96 // superblock 0 with the root group's symbol table entry
	entrySize    = 40 // symbol table entry
	heapHdrSize  = 32 // local heap header
	btreeHdrSize = 24 // v1 B-tree node header
	internalK    = 16 // group internal node K (HDF5's default)
	freeListNull = 1  // H5HL_FREE_NULL: a local heap without free blocks
	maxLeafK     = 1<<15 - 1
)

var signature = []byte{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'}

// HDF5 object header message types used here.
const (
	msgDataspace = 0x0001
	msgDatatype  = 0x0003
	msgFill      = 0x0005
	msgLayout    = 0x0008
	msgAttribute = 0x000C
	msgSymTable  = 0x0011
)

// block is one contiguous piece of the file: its size is known before any
// address is, so the whole file is laid out first and then written in one
// pass (a zip entry can be the destination).
type block struct {
	size  int64
	addr  int64
	write func(w io.Writer) error
}

type layout struct {
	blocks []*block
	leafK  int
}

func (l *layout) add(size int64, write func(io.Writer) error) *block {
	b := &block{size: size, write: write}
	l.blocks = append(l.blocks, b)
	return b
}

// groupBlocks are the pieces of one group.
type groupBlocks struct {
	header, heapHdr, heapData, btree, snod *block
	names                                  []string
	nameOffset                             map[string]int64
	children                               map[string]*block // object headers of the children
	childGroups                            map[string]*groupBlocks
}

// Write encodes root as an HDF5 file onto w and returns the number of bytes
// written.
func Write(w io.Writer, root *Group) (int64, error) {
	l := &layout{leafK: 4}
	if err := l.maxChildren(root); err != nil {
		return 0, err
	}
	super := l.add(superSize, nil)
	rootBlocks, err := l.group(root)
	if err != nil {
		return 0, err
	}
	var end int64
	for _, b := range l.blocks {
		b.addr = end
		end += b.size
	}
	super.write = func(w io.Writer) error { return l.writeSuper(w, rootBlocks, end) }
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := &countWriter{w: bw}
	for _, b := range l.blocks {
		if cw.n != b.addr {
			return cw.n, fmt.Errorf("h5: internal layout error: block planned at %d starts at %d", b.addr, cw.n)
		}
		if err := b.write(cw); err != nil {
			return cw.n, err
		}
	}
	if cw.n != end {
		return cw.n, fmt.Errorf("h5: internal layout error: wrote %d bytes, planned %d", cw.n, end)
	}
	return cw.n, bw.Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// maxChildren sets the leaf K so that every group's children fit in one
// symbol table node (2K entries).
func (l *layout) maxChildren(g *Group) error {
	n := len(g.Groups) + len(g.Datasets)
	if k := (n + 1) / 2; k > l.leafK {
		if k > maxLeafK {
			return fmt.Errorf("h5: a group with %d members is more than this writer supports (%d)", n, 2*maxLeafK)
		}
		l.leafK = k
	}
	for name, d := range g.Datasets {
		if _, dup := g.Groups[name]; dup {
			return fmt.Errorf("h5: %q is both a group and a dataset", name)
		}
		if err := d.check(); err != nil {
			return fmt.Errorf("h5: dataset %q: %w", name, err)
		}
	}
	for name, c := range g.Groups {
		if name == "" {
			return errors.New("h5: empty group name")
		}
		if err := l.maxChildren(c); err != nil {
			return err
		}
	}
	return nil
}

func pad8(n int64) int64 { return (n + 7) &^ 7 }

// message is an object header message's type and body (unpadded).
type message struct {
	typ  uint16
	body []byte
}

func headerSize(msgs []message) int64 {
	n := int64(16)
	for _, m := range msgs {
		n += 8 + pad8(int64(len(m.body)))
	}
	return n
}

// writeHeader writes a version 1 object header.
func writeHeader(w io.Writer, msgs []message) error {
	var pre [16]byte
	pre[0] = 1
	binary.LittleEndian.PutUint16(pre[2:], uint16(len(msgs)))
	binary.LittleEndian.PutUint32(pre[4:], 1)
	binary.LittleEndian.PutUint32(pre[8:], uint32(headerSize(msgs)-16))
	w.Write(pre[:])
	for _, m := range msgs {
		var h [8]byte
		size := pad8(int64(len(m.body)))
		binary.LittleEndian.PutUint16(h[0:], m.typ)
		binary.LittleEndian.PutUint16(h[2:], uint16(size))
		w.Write(h[:])
		w.Write(m.body)
		w.Write(make([]byte, size-int64(len(m.body))))
	}
	return nil // write errors are sticky in Write's bufio.Writer, reported by its Flush
}

func attrMessages(attrs map[string]string) ([]message, error) {
	var out []message
	for _, name := range sortedKeys(attrs) {
		value := attrs[name]
		if len(name)+1 > math.MaxUint16 || len(value)+1 > 1<<16-64 {
			return nil, fmt.Errorf("h5: attribute %q is too long", name)
		}
		dt := []byte{0x13, 0, 0, 0, 0, 0, 0, 0} // version 1, class 3 (string), null-terminated ASCII
		binary.LittleEndian.PutUint32(dt[4:], uint32(len(value)+1))
		ds := []byte{1, 0, 0, 0, 0, 0, 0, 0} // dataspace version 1, rank 0: a scalar
		var b []byte
		b = append(b, 1, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(name)+1))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dt)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(ds)))
		b = append(b, padded(append([]byte(name), 0))...)
		b = append(b, dt...)
		b = append(b, ds...)
		b = append(b, append([]byte(value), 0)...)
		out = append(out, message{msgAttribute, b})
	}
	return out, nil
}

func padded(b []byte) []byte { return append(b, make([]byte, pad8(int64(len(b)))-int64(len(b)))...) }

// group lays out g and everything below it: header, local heap, B-tree
// node, symbol table node, then the children in name order.
func (l *layout) group(g *Group) (*groupBlocks, error) {
	gb := &groupBlocks{names: g.names(), nameOffset: map[string]int64{}, children: map[string]*block{}, childGroups: map[string]*groupBlocks{}}
	attrs, err := attrMessages(g.Attrs)
	if err != nil {
		return nil, err
	}
	msgs := append([]message{{msgSymTable, make([]byte, 16)}}, attrs...)
	gb.header = l.add(headerSize(msgs), func(w io.Writer) error {
		binary.LittleEndian.PutUint64(msgs[0].body[0:], uint64(gb.btree.addr))
		binary.LittleEndian.PutUint64(msgs[0].body[8:], uint64(gb.heapHdr.addr))
		return writeHeader(w, msgs)
	})
	heap := []byte{0, 0, 0, 0, 0, 0, 0, 0} // offset 0: the empty name
	for _, n := range gb.names {
		gb.nameOffset[n] = int64(len(heap))
		heap = append(heap, padded(append([]byte(n), 0))...)
	}
	gb.heapHdr = l.add(heapHdrSize, func(w io.Writer) error {
		b := append([]byte("HEAP"), 0, 0, 0, 0)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(heap)))
		b = binary.LittleEndian.AppendUint64(b, freeListNull)
		b = binary.LittleEndian.AppendUint64(b, uint64(gb.heapData.addr))
		_, err := w.Write(b)
		return err
	})
	gb.heapData = l.add(int64(len(heap)), func(w io.Writer) error { _, err := w.Write(heap); return err })
	gb.btree = l.add(btreeHdrSize+2*internalK*8+(2*internalK+1)*8, func(w io.Writer) error { return l.writeBTree(w, gb) })
	if len(gb.names) > 0 {
		gb.snod = l.add(8+int64(2*l.leafK)*entrySize, func(w io.Writer) error { return l.writeSNOD(w, gb) })
	}
	for _, n := range gb.names {
		if d, ok := g.Datasets[n]; ok {
			gb.children[n] = l.dataset(d)
			continue
		}
		cg, err := l.group(g.Groups[n])
		if err != nil {
			return nil, err
		}
		gb.childGroups[n] = cg
		gb.children[n] = cg.header
	}
	return gb, nil
}

func (l *layout) writeBTree(w io.Writer, gb *groupBlocks) error {
	b := append([]byte("TREE"), 0, 0) // type 0 (group), level 0 (leaf)
	used := 0
	if gb.snod != nil {
		used = 1
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(used))
	b = binary.LittleEndian.AppendUint64(b, undefAddr) // left sibling
	b = binary.LittleEndian.AppendUint64(b, undefAddr) // right sibling
	b = binary.LittleEndian.AppendUint64(b, 0)         // key 0: the empty name
	if gb.snod != nil {
		b = binary.LittleEndian.AppendUint64(b, uint64(gb.snod.addr))
		b = binary.LittleEndian.AppendUint64(b, uint64(gb.nameOffset[gb.names[len(gb.names)-1]])) // key 1: the last name
	}
	b = append(b, make([]byte, btreeHdrSize+2*internalK*8+(2*internalK+1)*8-len(b))...)
	_, err := w.Write(b)
	return err
}

func (l *layout) writeSNOD(w io.Writer, gb *groupBlocks) error {
	b := append([]byte("SNOD"), 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(gb.names)))
	for _, n := range gb.names {
		b = binary.LittleEndian.AppendUint64(b, uint64(gb.nameOffset[n]))
		b = binary.LittleEndian.AppendUint64(b, uint64(gb.children[n].addr))
		if cg, ok := gb.childGroups[n]; ok {
			b = binary.LittleEndian.AppendUint32(b, 1) // cache type 1: the group's B-tree and heap
			b = binary.LittleEndian.AppendUint32(b, 0)
			b = binary.LittleEndian.AppendUint64(b, uint64(cg.btree.addr))
			b = binary.LittleEndian.AppendUint64(b, uint64(cg.heapHdr.addr))
		} else {
			b = append(b, make([]byte, 24)...)
		}
	}
	b = append(b, make([]byte, 8+2*l.leafK*entrySize-len(b))...)
	_, err := w.Write(b)
	return err
}

func (l *layout) writeSuper(w io.Writer, root *groupBlocks, end int64) error {
	b := append([]byte(nil), signature...)
	b = append(b, 0, 0, 0, 0, 0, 8, 8, 0) // versions 0, offsets and lengths of 8 bytes
	b = binary.LittleEndian.AppendUint16(b, uint16(l.leafK))
	b = binary.LittleEndian.AppendUint16(b, internalK)
	b = binary.LittleEndian.AppendUint32(b, 0)         // consistency flags
	b = binary.LittleEndian.AppendUint64(b, 0)         // base address
	b = binary.LittleEndian.AppendUint64(b, undefAddr) // free-space info
	b = binary.LittleEndian.AppendUint64(b, uint64(end))
	b = binary.LittleEndian.AppendUint64(b, undefAddr) // driver info
	b = binary.LittleEndian.AppendUint64(b, 0)         // root entry: name offset
	b = binary.LittleEndian.AppendUint64(b, uint64(root.header.addr))
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(root.btree.addr))
	b = binary.LittleEndian.AppendUint64(b, uint64(root.heapHdr.addr))
	_, err := w.Write(b)
	return err
}

// datatype returns the datatype message body for d.
func datatype(d DType) []byte {
	switch d {
	case Float32, Float64:
		size, sign, expLoc, expSize, mantSize, bias := 4, 31, 23, 8, 23, 127
		if d == Float64 {
			size, sign, expLoc, expSize, mantSize, bias = 8, 63, 52, 11, 52, 1023
		}
		// version 1, class 1 (floating point); little-endian, implied MSB
		// mantissa normalisation; sign bit position.
		b := []byte{0x11, 0x20, byte(sign), 0}
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		b = binary.LittleEndian.AppendUint16(b, 0)              // bit offset
		b = binary.LittleEndian.AppendUint16(b, uint16(8*size)) // precision
		b = append(b, byte(expLoc), byte(expSize), 0, byte(mantSize))
		return binary.LittleEndian.AppendUint32(b, uint32(bias))
	default: // Int64: version 1, class 0 (fixed point), little-endian, signed
		b := []byte{0x10, 0x08, 0, 0}
		b = binary.LittleEndian.AppendUint32(b, 8)
		b = binary.LittleEndian.AppendUint16(b, 0)
		return binary.LittleEndian.AppendUint16(b, 64)
	}
}

// dataset lays out d: its object header, then its data.
func (l *layout) dataset(d *Dataset) *block {
	space := []byte{1, byte(len(d.Shape)), 0, 0, 0, 0, 0, 0}
	for _, s := range d.Shape {
		space = binary.LittleEndian.AppendUint64(space, uint64(s))
	}
	fill := []byte{2, 1, 1, 0} // version 2: early allocation, never write fill values, none defined
	layoutMsg := make([]byte, 18)
	msgs := []message{{msgDataspace, space}, {msgDatatype, datatype(d.DType)}, {msgFill, fill}, {msgLayout, layoutMsg}}
	dataSize := int64(d.Len() * d.DType.Size())
	var data *block
	header := l.add(headerSize(msgs), func(w io.Writer) error {
		layoutMsg[0], layoutMsg[1] = 3, 1 // version 3, contiguous
		addr := uint64(undefAddr)
		if dataSize > 0 {
			addr = uint64(data.addr)
		}
		binary.LittleEndian.PutUint64(layoutMsg[2:], addr)
		binary.LittleEndian.PutUint64(layoutMsg[10:], uint64(dataSize))
		return writeHeader(w, msgs)
	})
	data = l.add(dataSize, func(w io.Writer) error { return writeData(w, d) })
	return header
}

func writeData(w io.Writer, d *Dataset) error {
	buf := make([]byte, 0, 1<<16)
	flush := func() {
		w.Write(buf)
		buf = buf[:0]
	}
	switch d.DType {
	case Float32:
		for _, v := range d.Float32 {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) {
				flush()
			}
		}
	case Float64:
		for _, v := range d.Float64 {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			if len(buf) == cap(buf) {
				flush()
			}
		}
	case Int64:
		for _, v := range d.Int64 {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
			if len(buf) == cap(buf) {
				flush()
			}
		}
	}
	flush()
	return nil
}
