package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// StackedRNNCells runs cells one after another within each step, like
// keras.layers.StackedRNNCells: each cell's output is the next cell's
// input, and the states are each cell's in turn (the first cell's
// first). RNN{Cell: &StackedRNNCells{Cells: ...}} is a stack of
// recurrent layers in one loop; the cells' weights are saved under
// cells/<cell class>, as Keras saves them.
type StackedRNNCells struct {
	Cells []RecurrentCell
	Base
}

// ClassName returns "StackedRNNCells".
func (*StackedRNNCells) ClassName() string { return "StackedRNNCells" }

// StateSizes are the cells' states, in order.
func (s *StackedRNNCells) StateSizes() []int {
	var out []int
	for _, c := range s.Cells {
		out = append(out, c.StateSizes()...)
	}
	return out
}

// OutputSize is the last cell's.
func (s *StackedRNNCells) OutputSize() int {
	if len(s.Cells) == 0 {
		return 0
	}
	return s.Cells[len(s.Cells)-1].OutputSize()
}

// Build builds each cell for the previous one's output.
func (s *StackedRNNCells) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(s.Cells) == 0 {
		return nil, fmt.Errorf("has no cells")
	}
	shape, err := one(inputs)
	if err != nil {
		return nil, err
	}
	for i, c := range s.Cells {
		if c == nil {
			return nil, fmt.Errorf("cell %d is nil", i)
		}
		if shape, err = c.Build([]backend.Shape{shape}); err != nil {
			return nil, fmt.Errorf("cell %d %s: %w", i, Describe(c), err)
		}
	}
	return shape, nil
}

// Call computes one step from zero states (the cells alone; RNN steps
// them).
func (s *StackedRNNCells) Call(ctx *Context, in []backend.Value) backend.Value {
	states := make([]backend.Value, 0)
	for _, n := range s.StateSizes() {
		states = append(states, zeroState(ctx.B, in[0], n, nil, 1)...)
	}
	out, _ := s.Step(ctx, in[0], states)
	return out
}

// Step runs the cells in turn.
func (s *StackedRNNCells) Step(ctx *Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
	return s.stepDropped(ctx, x, states, cellMasks{})
}

func (s *StackedRNNCells) dropoutMasks(ctx *Context, batch, features int) cellMasks {
	m := cellMasks{cells: make([]cellMasks, len(s.Cells))}
	for i, c := range s.Cells {
		if dc, ok := c.(dropoutCell); ok {
			m.cells[i] = dc.dropoutMasks(ctx, batch, features)
		}
		features = c.OutputSize()
	}
	return m
}

func (s *StackedRNNCells) stepDropped(ctx *Context, x backend.Value, states []backend.Value, m cellMasks) (backend.Value, []backend.Value) {
	var next []backend.Value
	at := 0
	for i, c := range s.Cells {
		n := len(c.StateSizes())
		own := states[at : at+n]
		at += n
		var cellNext []backend.Value
		if dc, ok := c.(dropoutCell); ok && m.cells != nil {
			x, cellNext = dc.stepDropped(ctx, x, own, m.cells[i])
		} else {
			x, cellNext = c.Step(ctx, x, own)
		}
		next = append(next, cellNext...)
	}
	return x, next
}

// GetConfig returns Keras's config: the cells.
func (s *StackedRNNCells) GetConfig() (serialization.Config, error) {
	cells := make([]any, len(s.Cells))
	for i, c := range s.Cells {
		cfg, err := Config(c)
		if err != nil {
			return nil, err
		}
		cells[i] = serialization.NewObject("keras.layers", c.ClassName(), cfg)
	}
	return serialization.Config{"cells": cells}, nil
}

func init() {
	mustRegister("StackedRNNCells", func(r *serialization.Reader) (Layer, error) {
		v, _ := r.Value("cells")
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("cells: want a list of cells, got %v", v)
		}
		s := &StackedRNNCells{}
		for _, e := range list {
			c, err := readCell(e)
			if err != nil {
				return nil, err
			}
			s.Cells = append(s.Cells, c)
		}
		return s, nil
	})
}
