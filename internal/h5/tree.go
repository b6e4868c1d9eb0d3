package h5

import (
	"fmt"
	"sort"
	"strings"
)

// DType is the element type of a dataset.
type DType uint8

// The element types Keras's weights files hold.
const (
	Float32 DType = iota + 1
	Float64
	Int64
)

// String returns numpy's name for the type ("float32").
func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Int64:
		return "int64"
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// Size is the size of one element in bytes.
func (d DType) Size() int {
	if d == Float32 {
		return 4
	}
	return 8
}

// Dataset is an n-dimensional array (a scalar when Shape is empty). Exactly
// the slice matching DType holds the values, row-major.
type Dataset struct {
	Shape   []int
	DType   DType
	Stored  string // the element type in the file, which DType may widen ("int32" read as Int64); set by Read
	Float32 []float32
	Float64 []float64
	Int64   []int64
}

// Len is the number of elements the shape declares.
func (d *Dataset) Len() int { return elements(d.Shape) }

func elements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func (d *Dataset) check() error {
	for _, s := range d.Shape {
		if s < 0 {
			return fmt.Errorf("negative dimension in shape %v", d.Shape)
		}
	}
	var have int
	switch d.DType {
	case Float32:
		have = len(d.Float32)
	case Float64:
		have = len(d.Float64)
	case Int64:
		have = len(d.Int64)
	default:
		return fmt.Errorf("unknown dtype %v", d.DType)
	}
	if have != d.Len() {
		return fmt.Errorf("shape %v needs %d values, the dataset holds %d", d.Shape, d.Len(), have)
	}
	return nil
}

// Group holds named groups, datasets and string attributes.
type Group struct {
	Attrs    map[string]string
	Groups   map[string]*Group
	Datasets map[string]*Dataset
}

// NewGroup returns an empty group.
func NewGroup() *Group {
	return &Group{Attrs: map[string]string{}, Groups: map[string]*Group{}, Datasets: map[string]*Dataset{}}
}

// Group returns the group at a slash-separated path below g, creating the
// groups on the way.
func (g *Group) Group(path string) *Group {
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		child, ok := g.Groups[part]
		if !ok {
			child = NewGroup()
			g.Groups[part] = child
		}
		g = child
	}
	return g
}

// Lookup returns the group at path, or nil.
func (g *Group) Lookup(path string) *Group {
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		if g = g.Groups[part]; g == nil {
			return nil
		}
	}
	return g
}

// names returns the names of g's children, groups and datasets, sorted as
// HDF5 orders symbol tables (bytewise).
func (g *Group) names() []string {
	out := make([]string, 0, len(g.Groups)+len(g.Datasets))
	for n := range g.Groups {
		out = append(out, n)
	}
	for n := range g.Datasets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Walk calls fn for every dataset below g with its slash-separated path, in
// sorted order.
func (g *Group) Walk(fn func(path string, d *Dataset)) {
	g.walk("", fn)
}

func (g *Group) walk(prefix string, fn func(string, *Dataset)) {
	for _, n := range g.names() {
		if d, ok := g.Datasets[n]; ok {
			fn(prefix+n, d)
		} else {
			g.Groups[n].walk(prefix+n+"/", fn)
		}
	}
}
