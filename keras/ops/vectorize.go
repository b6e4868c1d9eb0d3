package ops

import (
	"fmt"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Vectorize applies f over the loop axes of args, as Keras's
// ops.vectorize(f, signature=...)(args...) (NumPy's generalised
// ufuncs): signature names each argument's core axes, the trailing axes f
// sees, and each output's, as "(m,n),(n)->(m)" for a matrix-vector
// product; the axes before them are the loop axes, broadcast across the
// arguments. An empty signature makes every axis a loop axis: f sees
// scalars and returns scalars. f returns one value per output.
//
// kerasgo builds f once per element of the loop axes (as Map does) and
// stacks the results: for many elements, write f over whole tensors
// instead. Keras's vectorize returns a function; in Go, Vectorize
// applies it at once (wrap it in a closure to reuse it), and Keras's
// excluded arguments are the values f's closure captures.
func Vectorize(b Builder, f func(args ...Value) []Value, signature string, args ...Value) []Value {
	const op = "Vectorize"
	fail := func(outputs int, s Shape, format string, args ...any) []Value {
		failf(b, op, s, format, args...)
		return failedList(b, outputs)
	}
	for i, a := range args {
		if a == nil {
			return fail(1, nil, "argument %d is nil", i)
		}
	}
	ins, outs, err := parseSignature(signature, len(args))
	if err != nil {
		return fail(1, nil, "signature %q: %v", signature, err)
	}
	sizes := map[string]int{}
	var loop Shape
	for i, a := range args {
		s := a.Shape()
		core := ins[i]
		if len(s) < len(core) {
			return fail(1, s, "argument %d of shape %v has fewer axes than its core axes (%s) in signature %q", i, s, strings.Join(core, ","), signature)
		}
		lead := len(s) - len(core)
		for k, name := range core {
			if n, seen := sizes[name]; seen && n != s[lead+k] {
				return fail(1, s, "core axis %s is %d in argument %d (shape %v) and %d before it", name, s[lead+k], i, s, n)
			}
			sizes[name] = s[lead+k]
		}
		if loop, err = backend.BroadcastShapes(loop, s[:lead]); err != nil {
			return fail(1, s, "the loop axes of argument %d (shape %v) do not broadcast with the others' %v: %v", i, s, loop, err)
		}
	}
	n := loop.Size()
	slices := make([][]Value, len(args)) // [argument][element]
	for i, a := range args {
		s := a.Shape()
		core := s[len(s)-len(ins[i]):].Clone()
		full := broadcastTo(b, a, append(loop.Clone(), core...))
		slices[i] = Unstack(b, b.Reshape(full, append(Shape{n}, core...)), 0)
	}
	results := make([][]Value, 0, n) // [element][output]
	for e := range n {
		call := make([]Value, len(args))
		for i := range args {
			call[i] = slices[i][e]
		}
		got := f(call...)
		if outs != nil && len(got) != len(outs) {
			return fail(len(outs), nil, "f returned %d values, signature %q has %d outputs", len(got), signature, len(outs))
		}
		for k, v := range got {
			if v == nil {
				return fail(len(got), nil, "f's output %d is nil", k)
			}
		}
		results = append(results, got)
	}
	if n == 0 {
		return fail(1, loop, "the loop axes %v are empty: f would never be called to give the outputs' shapes", loop)
	}
	out := make([]Value, len(results[0]))
	for k := range out {
		core := results[0][k].Shape()
		if outs != nil {
			if len(core) != len(outs[k]) {
				return fail(len(out), core, "f's output %d has shape %v, signature %q gives it %d core axes", k, core, signature, len(outs[k]))
			}
			for j, name := range outs[k] {
				if want, known := sizes[name]; known && want != core[j] {
					return fail(len(out), core, "f's output %d has shape %v, but core axis %s is %d", k, core, name, want)
				}
			}
		} else if len(core) != 0 {
			return fail(len(out), core, "without a signature f must return scalars; its output %d has shape %v (give a signature such as \"(n)->(n)\")", k, core)
		}
		column := make([]Value, n)
		for e := range n {
			column[e] = results[e][k]
		}
		out[k] = b.Reshape(Stack(b, column, 0), append(loop.Clone(), core...))
	}
	return out
}

// parseSignature reads a generalised ufunc signature into the core axes'
// names of each input and output; an empty signature gives every one of
// the n inputs no core axes and no output list (outputs are scalars).
func parseSignature(signature string, n int) (ins, outs [][]string, err error) {
	if strings.TrimSpace(signature) == "" {
		return make([][]string, n), nil, nil
	}
	left, right, ok := strings.Cut(signature, "->")
	if !ok {
		return nil, nil, fmt.Errorf("want \"(core axes),... -> (core axes),...\", with \"->\"")
	}
	if ins, err = signatureSide(left); err != nil {
		return nil, nil, err
	}
	if outs, err = signatureSide(right); err != nil {
		return nil, nil, err
	}
	if len(ins) != n {
		return nil, nil, fmt.Errorf("it has %d inputs, and %d arguments were given", len(ins), n)
	}
	return ins, outs, nil
}

// signatureSide reads "(m,n),(n)" into [[m n] [n]].
func signatureSide(side string) ([][]string, error) {
	side = strings.ReplaceAll(side, " ", "")
	var out [][]string
	for side != "" {
		if side[0] != '(' {
			return nil, fmt.Errorf("each argument's core axes are in parentheses, as (m,n); got %q", side)
		}
		end := strings.IndexByte(side, ')')
		if end < 0 {
			return nil, fmt.Errorf("\"(\" without \")\"")
		}
		var names []string
		if inner := side[1:end]; inner != "" {
			names = strings.Split(inner, ",")
			for _, name := range names {
				if name == "" || strings.ContainsAny(name, "()") {
					return nil, fmt.Errorf("core axis names are words separated by commas, got (%s)", inner)
				}
			}
		}
		out = append(out, names)
		side = strings.TrimPrefix(side[end+1:], ",")
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("a side without arguments")
	}
	return out, nil
}
