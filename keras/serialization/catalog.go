package serialization

import (
	"fmt"
	"slices"
	"sort"
)

// Catalog holds the objects of one kind that a Keras identifier names
// (regularizers, constraints): each class under its class name and its
// snake_case form, made with Keras's defaults. It answers
// keras.<kind>.get for a string and opens the Keras form of an object
// for the package's Deserialize.
type Catalog[T any] struct {
	kind    string // "regularizer", "constraint": for errors
	classes []string
	make    map[string]func() T
}

// NewCatalog returns the catalog of kind with one constructor per class
// name; each is known by its class name and its SnakeCase form, as Keras
// knows "L2" and "l2", "MaxNorm" and "max_norm".
func NewCatalog[T any](kind string, classes map[string]func() T) *Catalog[T] {
	c := &Catalog[T]{kind: kind, make: map[string]func() T{}}
	for class, f := range classes {
		c.classes = append(c.classes, class)
		c.make[class] = f
		c.make[SnakeCase(class)] = f
	}
	sort.Strings(c.classes)
	return c
}

// Names returns the identifiers Get knows, sorted.
func (c *Catalog[T]) Names() []string {
	out := make([]string, 0, len(c.make))
	for k := range c.make {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Classes returns the class names, sorted.
func (c *Catalog[T]) Classes() []string { return slices.Clone(c.classes) }

// Has reports whether class is one of the catalog's classes.
func (c *Catalog[T]) Has(class string) bool { return slices.Contains(c.classes, class) }

// Get returns the object an identifier names, with Keras's defaults.
func (c *Catalog[T]) Get(name string) (T, error) {
	f, ok := c.make[name]
	if !ok {
		var zero T
		return zero, fmt.Errorf("unknown %s %q: kerasgo has %v", c.kind, name, c.Names())
	}
	return f(), nil
}

// Open reads the Keras form v of an object: nil is none (a nil Reader
// and the zero T); an identifier is the object Get returns (a nil
// Reader); a class object gives its class and a Reader of its config,
// for the caller to read the settings of the class from, and Finish.
func (c *Catalog[T]) Open(v any) (obj T, class string, r *Reader, err error) {
	if v == nil {
		return obj, "", nil, nil
	}
	class, cfg, ok := ClassOrName(v)
	if !ok {
		return obj, "", nil, fmt.Errorf("cannot read %s %v: want a name such as %q or a Keras object", c.kind, v, SnakeCase(c.classes[0]))
	}
	if cfg == nil {
		if _, isMap := v.(map[string]any); !isMap {
			obj, err = c.Get(class)
			return obj, class, nil, err
		}
		cfg = Config{}
	}
	return obj, class, NewReader(c.kind+" "+class, cfg), nil
}

// Unknown is the error for a class object of a class the catalog lacks.
func (c *Catalog[T]) Unknown(class string) error {
	return fmt.Errorf("kerasgo has no %s %s (it has %v)", c.kind, class, c.classes)
}
