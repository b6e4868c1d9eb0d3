package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RecurrentCell is a layer that computes one step of a recurrence, as a
// Keras RNN cell; RNN runs it over the steps of a sequence. Its Build
// receives one step's input shape (batch, features) and returns the
// step's output shape (batch, OutputSize()). SimpleRNNCell, LSTMCell,
// GRUCell and StackedRNNCells are cells; write one of your own to make a
// recurrent layer of your own, as Keras's guide to RNNs does (a cell
// holding its weights, built in Build, registered to be saved).
type RecurrentCell interface {
	Layer
	// StateSizes are the sizes of the states the cell carries from step
	// to step (Keras's state_size); they start at zeros unless the RNN
	// is given initial states.
	StateSizes() []int
	// OutputSize is the size of each step's output (Keras's
	// output_size).
	OutputSize() int
	// Step computes one step from the step's input x (batch, features)
	// and the states, returning the output (batch, OutputSize()) and the
	// next states.
	Step(ctx *Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value)
}

// dropoutCell is a cell with Keras's DropoutRNNCell: masks drawn once
// per call, the same at every step.
type dropoutCell interface {
	// dropoutMasks draws the cell's masks for a call in training, for
	// step inputs of features.
	dropoutMasks(ctx *Context, batch, features int) cellMasks
	// stepDropped is Step with the call's masks.
	stepDropped(ctx *Context, x backend.Value, states []backend.Value, m cellMasks) (backend.Value, []backend.Value)
}

// cellMasks are one call's dropout masks: for the step input and for the
// recurrent state (nil without), and a stack's cells' own.
type cellMasks struct {
	input, recurrent backend.Value
	cells            []cellMasks
}

// RNN runs a recurrent cell over the steps of sequences (batch, time,
// features), like keras.layers.RNN: the output is the last step's
// (batch, OutputSize), or every step's (batch, time, OutputSize) with
// ReturnSequences. RNN{Cell: &LSTMCell{Units: 8}} is LSTM{Units: 8},
// weights included; a cell of your own makes a recurrent layer of your
// own. Applied to more inputs, they are the initial states. Masks are
// taken as the built-in recurrent layers take them.
type RNN struct {
	Cell            RecurrentCell // required; a StackedRNNCells for several
	ReturnSequences bool
	// ReturnState adds the final states as the layer's further outputs
	// (layers.ApplyOutputs), as Keras's return_state.
	ReturnState bool
	GoBackwards bool
	// ZeroOutputForMask makes a masked step's output zeros instead of
	// the previous step's (Keras's zero_output_for_mask).
	ZeroOutputForMask bool
	Base

	outs []backend.Shape
}

// ClassName returns "RNN".
func (*RNN) ClassName() string { return "RNN" }

func (l *RNN) settings() recurrentSettings {
	return recurrentSettings{units: l.Cell.OutputSize(), returnSequences: l.ReturnSequences, goBackwards: l.GoBackwards, zeroOutputForMask: l.ZeroOutputForMask}
}

// Build builds the cell for the sequence's steps.
func (l *RNN) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.Cell == nil {
		return nil, fmt.Errorf("has no cell: set RNN.Cell (an LSTMCell, GRUCell, SimpleRNNCell, StackedRNNCells or a RecurrentCell of your own)")
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("expects a sequence input")
	}
	in := inputs[0]
	if len(in) != 3 || in[1] == 0 || in[1] < -1 || in[2] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, timesteps, features), received %v: a recurrent layer reads sequences", in)
	}
	step, err := l.Cell.Build([]backend.Shape{{in[0], in[2]}})
	if err != nil {
		return nil, fmt.Errorf("cell %s: %w", Describe(l.Cell), err)
	}
	units := l.Cell.OutputSize()
	if len(step) != 2 || step[1] != units {
		return nil, fmt.Errorf("cell %s: its Build gives %v for a step, where its OutputSize is %d: want (batch, %d)", Describe(l.Cell), step, units, units)
	}
	sizes := l.Cell.StateSizes()
	if states := inputs[1:]; len(states) > 0 {
		if len(states) != len(sizes) {
			return nil, fmt.Errorf("expects %d initial state(s) after the sequence, received %d", len(sizes), len(states))
		}
		for i, st := range states {
			if len(st) != 2 || st[1] != sizes[i] {
				return nil, fmt.Errorf("initial state %d has shape %v, expected (batch, %d)", i, st, sizes[i])
			}
		}
	}
	out := backend.Shape{in[0], units}
	if l.ReturnSequences {
		out = backend.Shape{in[0], in[1], units}
	}
	l.outs = []backend.Shape{out}
	if l.ReturnState {
		for _, n := range sizes {
			l.outs = append(l.outs, backend.Shape{in[0], n})
		}
	}
	return out, nil
}

// OutputShapes returns the output's shape, then with ReturnState each
// state's.
func (l *RNN) OutputShapes() []backend.Shape { return l.outs }

// Call runs the sequence and returns the output.
func (l *RNN) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs runs the cell over the sequence and returns the output,
// then with ReturnState the final states.
func (l *RNN) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	b, x := ctx.B, in[0]
	d := x.Shape()
	batch, steps, features := d[0], d[1], d[2]
	sizes := l.Cell.StateSizes()
	states := in[1:]
	if len(states) != len(sizes) {
		states = make([]backend.Value, len(sizes))
		for i, n := range sizes {
			states[i] = b.Constant(make([]float64, batch*n), backend.Shape{batch, n})
		}
	}
	dc, dropped := l.Cell.(dropoutCell)
	var masks cellMasks
	if dropped {
		masks = dc.dropoutMasks(ctx, batch, features)
	}
	out, final := recur(ctx, l.settings(), batch, steps, states, func(t int, states []backend.Value) (backend.Value, []backend.Value) {
		xt := b.Reshape(b.Slice(x, []int{0, t, 0}, []int{batch, 1, features}), backend.Shape{batch, features})
		if dropped {
			return dc.stepDropped(ctx, xt, states, masks)
		}
		return l.Cell.Step(ctx, xt, states)
	})
	if !l.ReturnState {
		return []backend.Value{out}
	}
	return append([]backend.Value{out}, final...)
}

// ComputeMask passes the input's mask on with ReturnSequences.
func (l *RNN) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	return sequenceMask(ctx.B, l.settings(), m)
}

// GetConfig returns Keras's RNN config: the sequence settings and the
// cell.
func (l *RNN) GetConfig() (serialization.Config, error) {
	if l.Cell == nil {
		return nil, fmt.Errorf("has no cell")
	}
	c, err := Config(l.Cell)
	if err != nil {
		return nil, err
	}
	return serialization.Config{
		"return_sequences": l.ReturnSequences, "return_state": l.ReturnState, "go_backwards": l.GoBackwards,
		"stateful": false, "unroll": false, "zero_output_for_mask": l.ZeroOutputForMask,
		"cell": serialization.NewObject("keras.layers", l.Cell.ClassName(), c),
	}, nil
}

func (l *RNN) setZeroOutputForMask(on bool) { l.ZeroOutputForMask = on }

// takesUnknownDims: RNN reads the sequence's length from its input.
func (*RNN) takesUnknownDims() {}

// readCell reads a serialized cell (RNN's cell, a StackedRNNCells'
// cells).
func readCell(v any) (RecurrentCell, error) {
	l, err := FromObject(v, "the cell")
	if err != nil {
		return nil, err
	}
	cell, ok := l.(RecurrentCell)
	if !ok {
		return nil, fmt.Errorf("%s is not a recurrent cell (a layers.RecurrentCell)", l.ClassName())
	}
	return cell, nil
}

func init() {
	mustRegister("RNN", func(r *serialization.Reader) (Layer, error) {
		v, _ := r.Value("cell")
		if list, isList := v.([]any); isList { // Keras's RNN([cells]) saved before it made them a StackedRNNCells
			s := &StackedRNNCells{}
			for _, e := range list {
				c, err := readCell(e)
				if err != nil {
					return nil, err
				}
				s.Cells = append(s.Cells, c)
			}
			l := &RNN{Cell: s}
			readRNNSettings(r, l)
			return l, nil
		}
		cell, err := readCell(v)
		if err != nil {
			return nil, err
		}
		l := &RNN{Cell: cell}
		readRNNSettings(r, l)
		return l, nil
	})
}

// readRNNSettings reads RNN's sequence settings.
func readRNNSettings(r *serialization.Reader, l *RNN) {
	l.ReturnSequences, l.ReturnState, l.GoBackwards = r.Bool("return_sequences", false), r.Bool("return_state", false), r.Bool("go_backwards", false)
	l.ZeroOutputForMask = r.Bool("zero_output_for_mask", false)
	r.Expect("stateful", false, "stateful RNNs are not supported")
	r.Ignore("unroll")
}
