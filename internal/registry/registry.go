// Package registry holds values registered by name, safe for concurrent
// use: the loss and metric functions a program registers so that the
// models it saves with them load again (losses.Register,
// metrics.Register).
package registry

import (
	"fmt"
	"sync"
)

// Registry maps names to values of type T. The zero Registry is empty
// and ready to use.
type Registry[T any] struct {
	mu sync.RWMutex
	m  map[string]T
}

// Register adds value under name. what names the kind in errors ("loss
// function"); builtin reports names that are taken already (the
// package's own). An empty name, a built-in name and a second
// registration of a name are errors.
func (r *Registry[T]) Register(what, name string, value T, builtin func(string) bool) error {
	if name == "" {
		return fmt.Errorf("a %s needs a name to be registered", what)
	}
	if builtin(name) {
		return fmt.Errorf("%q is the name of a built-in %s: register yours under another name", name, what)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		return fmt.Errorf("a %s named %q is registered already: register each name once (in an init function)", what, name)
	}
	if r.m == nil {
		r.m = map[string]T{}
	}
	r.m[name] = value
	return nil
}

// Lookup returns the value registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[name]
	return v, ok
}
