package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ConvLSTM2D is a convolutional LSTM over sequences of images (batch,
// time, rows, cols, channels), like keras.layers.ConvLSTM2D: an LSTM whose
// products are convolutions (see conv_lstm.go). The kernel is (rows, cols,
// channels, 4*Filters), the recurrent kernel (rows, cols, Filters,
// 4*Filters), the gates input, forget, cell and output. The output is the
// last h (batch, rows', cols', Filters), or every step's with
// ReturnSequences; applied to three inputs, the second and third are the
// initial h and c.
type ConvLSTM2D struct {
	Filters              int    // required
	KernelSize           [2]int // required
	Strides              [2]int // default 1
	Padding              string // "valid" (default) or "same"
	DilationRate         [2]int // default 1; strides must then be 1
	Activation           string // default "tanh"
	RecurrentActivation  string // default "sigmoid"
	NoBias               bool
	KernelInitializer    string // default "glorot_uniform"
	RecurrentInitializer string // default "orthogonal"
	BiasInitializer      string // default "zeros"
	// KernelRegularizer, RecurrentRegularizer and BiasRegularizer add
	// penalties of the kernels and the bias to the loss; the constraints
	// project them after each update (Keras's kernel_regularizer, ...).
	KernelRegularizer, RecurrentRegularizer, BiasRegularizer regularizers.Regularizer
	KernelConstraint, RecurrentConstraint, BiasConstraint    constraints.Constraint
	// NoUnitForgetBias turns off Keras's unit_forget_bias (on by
	// default): the forget gate's bias starts at 1, the rest at 0.
	NoUnitForgetBias bool
	Dropout          float64 // fraction of each step's input dropped in training, per gate
	RecurrentDropout float64 // fraction of h dropped in training, per gate
	ReturnSequences  bool
	// ReturnState adds the final h and c as the layer's second and third
	// outputs (layers.ApplyOutputs), as Keras's return_state.
	ReturnState bool
	GoBackwards bool
	Base

	st convLSTMState
}

// ClassName returns "ConvLSTM2D".
func (*ConvLSTM2D) ClassName() string { return "ConvLSTM2D" }

func (l *ConvLSTM2D) spec() convLSTMSpec {
	return convLSTMSpec{filters: l.Filters, kernel: l.KernelSize[:], strides: l.Strides[:], dilation: l.DilationRate[:], padding: l.Padding,
		activation: l.Activation, recurrentActivation: l.RecurrentActivation, noBias: l.NoBias, noUnitForgetBias: l.NoUnitForgetBias,
		kernelInit: l.KernelInitializer, recurrentInit: l.RecurrentInitializer, biasInit: l.BiasInitializer,
		penalties: recurrentPenalties{kernelReg: l.KernelRegularizer, recurrentReg: l.RecurrentRegularizer, biasReg: l.BiasRegularizer,
			kernelCon: l.KernelConstraint, recurrentCon: l.RecurrentConstraint, biasCon: l.BiasConstraint},
		dropout: l.Dropout, recurrentDropout: l.RecurrentDropout, returnSequences: l.ReturnSequences, returnState: l.ReturnState, goBackward: l.GoBackwards}.normalized()
}

// Build checks the input and creates the weights.
func (l *ConvLSTM2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	st, err := l.spec().build(&l.Base, inputs)
	if err != nil {
		return nil, err
	}
	l.st = st
	return st.outs[0], nil
}

// OutputShapes returns the output's shape, then with ReturnState h's and c's.
func (l *ConvLSTM2D) OutputShapes() []backend.Shape { return l.st.outs }

// Call runs the sequence and returns the output.
func (l *ConvLSTM2D) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs runs the sequence and returns the output, then with
// ReturnState the final h and c.
func (l *ConvLSTM2D) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	return l.spec().call(ctx, l.st, in)
}

// SavedGroups keeps the weights under "cell", as Keras's ConvLSTM2D does.
func (l *ConvLSTM2D) SavedGroups() []SavedGroup { return cellGroups(&l.Base) }

// GetConfig returns Keras's ConvLSTM2D config.
func (l *ConvLSTM2D) GetConfig() (serialization.Config, error) { return l.spec().config() }

func init() {
	mustRegister("ConvLSTM2D", func(r *serialization.Reader) (Layer, error) {
		s := readConvLSTM(r, 2)
		return &ConvLSTM2D{Filters: s.filters, KernelSize: [2]int(s.kernel), Strides: [2]int(s.strides), DilationRate: [2]int(s.dilation), Padding: s.padding,
			Activation: s.activation, RecurrentActivation: s.recurrentActivation, NoBias: s.noBias, NoUnitForgetBias: s.noUnitForgetBias,
			KernelInitializer: s.kernelInit, RecurrentInitializer: s.recurrentInit, BiasInitializer: s.biasInit,
			KernelRegularizer: s.penalties.kernelReg, RecurrentRegularizer: s.penalties.recurrentReg, BiasRegularizer: s.penalties.biasReg,
			KernelConstraint: s.penalties.kernelCon, RecurrentConstraint: s.penalties.recurrentCon, BiasConstraint: s.penalties.biasCon,
			Dropout: s.dropout, RecurrentDropout: s.recurrentDropout, ReturnSequences: s.returnSequences, ReturnState: s.returnState, GoBackwards: s.goBackward}, nil
	})
}
