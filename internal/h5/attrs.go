package h5

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// Attr returns the string attribute name of the group at path ("" for the
// root group): one value for a scalar attribute, one per element for an
// array of strings. ok is false when the group has no string attribute
// of that name. Keras's legacy HDF5 files keep the model's config and the
// layer and weight names there, as fixed-length strings (h5py 2) or
// variable-length ones (h5py 3).
func (f *File) Attr(path, name string) (values []string, ok bool) {
	values, ok = f.attrs[strings.Trim(path, "/")][name]
	return values, ok
}

// AttrNames returns the names of the string attributes of the group at
// path, sorted.
func (f *File) AttrNames(path string) []string {
	return sortedKeys(f.attrs[strings.Trim(path, "/")])
}

// readAttributes keeps the string attributes among a group's header
// messages; attributes of other types are skipped.
func (f *File) readAttributes(msgs []headerMessage, path string) error {
	for _, m := range msgs {
		if m.typ != msgAttribute {
			continue
		}
		name, values, isString, err := f.attribute(m.data, path)
		if err != nil {
			return err
		}
		if !isString {
			continue
		}
		if f.attrs[path] == nil {
			f.attrs[path] = map[string][]string{}
		}
		f.attrs[path][name] = values
	}
	return nil
}

// attribute reads one attribute message (versions 1 to 3).
func (f *File) attribute(b []byte, path string) (name string, values []string, isString bool, err error) {
	where := "/" + path
	if len(b) < 8 {
		return "", nil, false, bad("a short attribute message on %q", where)
	}
	version := b[0]
	if version < 1 || version > 3 {
		return "", nil, false, bad("attribute message version %d on %q", version, where)
	}
	nameSize, typeSize, spaceSize := int(binary.LittleEndian.Uint16(b[2:])), int(binary.LittleEndian.Uint16(b[4:])), int(binary.LittleEndian.Uint16(b[6:]))
	p := 8
	if version == 3 {
		p = 9 // the name's character set
	}
	field := func(n int) ([]byte, error) {
		if n > len(b)-p {
			return nil, bad("an attribute message on %q overruns itself", where)
		}
		out := b[p : p+n]
		if version == 1 {
			n = (n + 7) &^ 7 // version 1 pads each field to 8 bytes
		}
		p = min(p+n, len(b))
		return out, nil
	}
	rawName, err := field(nameSize)
	if err != nil {
		return "", nil, false, err
	}
	dtype, err := field(typeSize)
	if err != nil {
		return "", nil, false, err
	}
	space, err := field(spaceSize)
	if err != nil {
		return "", nil, false, err
	}
	data := b[p:]
	name = string(bytes.TrimRight(rawName, "\x00"))
	if len(dtype) < 8 {
		return "", nil, false, bad("attribute %q on %q: short datatype", name, where)
	}
	class, elemSize := dtype[0]&0x0f, int(binary.LittleEndian.Uint32(dtype[4:]))
	fixed := class == 3
	variable := class == 9 && dtype[1]&0x0f == 1
	if !fixed && !variable {
		return name, nil, false, nil
	}
	n, err := attributeElements(space, name, where)
	if err != nil {
		return "", nil, false, err
	}
	if elemSize <= 0 || n > len(data)/elemSize {
		return "", nil, false, bad("attribute %q on %q: %d elements of %d bytes in %d bytes", name, where, n, elemSize, len(data))
	}
	values = make([]string, n)
	for i := range values {
		e := data[i*elemSize : (i+1)*elemSize]
		if fixed {
			values[i] = string(bytes.TrimRight(e, "\x00 "))
			continue
		}
		if elemSize < 16 {
			return "", nil, false, bad("attribute %q on %q: a variable-length string of %d bytes", name, where, elemSize)
		}
		s, err := f.globalHeapObject(binary.LittleEndian.Uint64(e[4:]), binary.LittleEndian.Uint32(e[12:]), int(binary.LittleEndian.Uint32(e)))
		if err != nil {
			return "", nil, false, err
		}
		values[i] = s
	}
	return name, values, true, nil
}

// attributeElements is the number of elements an attribute's dataspace
// holds: 1 for a scalar, the product of the dimensions otherwise.
func attributeElements(space []byte, name, where string) (int, error) {
	if len(space) < 4 {
		return 0, bad("attribute %q on %q: short dataspace", name, where)
	}
	rank, dimsAt := int(space[1]), 8
	switch space[0] {
	case 1:
	case 2:
		dimsAt = 4
		switch space[3] {
		case 0:
			return 1, nil
		case 2:
			return 0, nil
		}
	default:
		return 0, bad("attribute %q on %q: dataspace version %d", name, where, space[0])
	}
	if rank > maxRank || len(space) < dimsAt+8*rank {
		return 0, bad("attribute %q on %q: a dataspace of rank %d in %d bytes", name, where, rank, len(space))
	}
	n := uint64(1)
	for i := range rank {
		d := binary.LittleEndian.Uint64(space[dimsAt+8*i:])
		if d > 1<<31 || (d > 0 && n > (1<<31)/d) {
			return 0, bad("attribute %q on %q declares %d elements", name, where, d)
		}
		n *= d
	}
	return int(n), nil
}

// globalHeapObject returns length bytes of object index in the global
// heap collection at addr, where HDF5 keeps variable-length strings.
func (f *File) globalHeapObject(addr uint64, index uint32, length int) (string, error) {
	objs, ok := f.globalHeaps[addr]
	if !ok {
		var err error
		if objs, err = f.globalHeap(addr); err != nil {
			return "", err
		}
		f.globalHeaps[addr] = objs
	}
	obj, ok := objs[index]
	if !ok {
		return "", bad("no object %d in the global heap at %d", index, addr)
	}
	if length < 0 || length > len(obj) {
		return "", bad("a string of %d bytes in a global heap object of %d", length, len(obj))
	}
	return string(obj[:length]), nil
}

// globalHeap reads the global heap collection at addr: its objects by
// index.
func (f *File) globalHeap(addr uint64) (map[uint32][]byte, error) {
	h, err := f.read(addr, 16)
	if err != nil {
		return nil, err
	}
	if string(h[:4]) != "GCOL" || h[4] != 1 {
		return nil, bad("no global heap collection at %d", addr)
	}
	size := binary.LittleEndian.Uint64(h[8:])
	if size < 16 {
		return nil, bad("a global heap collection of %d bytes at %d", size, addr)
	}
	body, err := f.read(addr, size) // checked against the file's size
	if err != nil {
		return nil, err
	}
	objs := map[uint32][]byte{}
	for p := 16; p+16 <= len(body); {
		index := uint32(binary.LittleEndian.Uint16(body[p:]))
		n := binary.LittleEndian.Uint64(body[p+8:])
		if index == 0 {
			break // free space: the rest of the collection
		}
		if n > uint64(len(body)-p-16) {
			return nil, bad("global heap object %d of %d bytes overruns its collection at %d", index, n, addr)
		}
		objs[index] = body[p+16 : p+16+int(n)]
		p += 16 + int((n+7)&^7)
	}
	return objs, nil
}
