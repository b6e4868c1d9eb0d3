package layers

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/internal/settings"
	"github.com/kerasgo/kerasgo/internal/sysmem"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Layer is a Keras layer. Implementations embed [Base].
type Layer interface {
	// ClassName is the Keras class name, e.g. "Dense".
	ClassName() string
	// Common returns the state every layer has (name, weights).
	Common() *Base
	// Build checks the input shapes (batch dimension -1), creates the
	// layer's weights on first use with AddWeight, and returns the output
	// shape. Errors need not name the layer; Apply adds that.
	Build(inputs []backend.Shape) (backend.Shape, error)
	// Call computes the layer's output from its inputs.
	Call(ctx *Context, inputs []backend.Value) backend.Value
}

// Base is the state shared by every layer. Embed it in a layer struct.
type Base struct {
	// Name is the layer's name in summaries and saved models. Left empty,
	// the model assigns Keras's default ("dense", "dense_1", ...).
	Name string
	// ActivityRegularizer, when set, adds its penalty of the layer's
	// output, divided by the batch size, to the loss of each training and
	// evaluation step, for each call of the layer (Keras's
	// activity_regularizer, which every layer takes).
	ActivityRegularizer regularizers.Regularizer

	weights []*Weight
	frozen  bool
	// trainableAt orders SetTrainable calls (trainableClock), so that
	// the latest setting of a layer or of a layer holding it wins, as in
	// Keras 3, whose setter sets the flag of every layer below at once.
	trainableAt uint64
	// self is the layer that embeds this Base, once known (Apply, or a
	// layer holding it); until then a setting waits (trainablePending)
	// to be passed on to the layers it holds.
	self             Layer
	trainablePending bool
	calls            []*KerasTensor // the outputs of each Apply of the layer, in order
	policy           string         // a reduced-precision dtype policy read from a config ("" is float32)
	policySet        bool           // the policy was chosen (SetDTypePolicy, a config, AdoptDTypePolicy)
	// builtInCall is true once Context.Apply built the layer, in the
	// shape-only run of the Call of a layer holding it (BuildByCall).
	builtInCall bool
}

// DTypePolicy returns the layer's Keras dtype policy when it is a
// reduced-precision one (serialization.ReducedPrecisionPolicies:
// "mixed_bfloat16", "mixed_float16", ...), from SetDTypePolicy or the
// layer's config, and "" for float32. Saving writes it back.
func (c *Base) DTypePolicy() string { return c.policy }

// SetDTypePolicy sets the layer's Keras dtype policy, as Keras's
// dtype="mixed_bfloat16" argument: "float32" (or ""), "mixed_bfloat16",
// "mixed_float16", "bfloat16" or "float16". Under a reduced-precision
// policy an engine that autocasts (backend.Capabilities.Autocast:
// libtorch, bfloat16 on a CPU, both on CUDA) computes the layer in that
// dtype, rounding each op's result to it, while its variables stay
// float32; the normalization layers compute in float32 and round their
// outputs, as Keras's do. Other engines compute it all in float32 and
// Model.Notes says so. Set it before the model is compiled.
func (c *Base) SetDTypePolicy(name string) error {
	if err := CheckDTypePolicy(name); err != nil {
		return err
	}
	c.policy, c.policySet = name, true
	if name == "float32" {
		c.policy = ""
	}
	return nil
}

// CheckDTypePolicy returns an error naming the policies kerasgo has
// unless name is one of them ("" is float32).
func CheckDTypePolicy(name string) error {
	if name == "float32" || name == "" || slices.Contains(serialization.ReducedPrecisionPolicies, name) {
		return nil
	}
	return fmt.Errorf("dtype policy %q: kerasgo has float32 and %s", name, strings.Join(serialization.ReducedPrecisionPolicies, ", "))
}

// AdoptDTypePolicy gives policy to l and to every layer it holds
// (Sublayers) whose policy was never chosen, as Keras gives its global
// policy (keras.config.set_dtype_policy) to each layer made without a
// dtype argument; a layer whose policy was set (SetDTypePolicy, even to
// "float32") or read from a file keeps it, and so does a layer computing
// on the host (a lookup, a hashing). keras.Model.Compile calls it with
// keras.DTypePolicy.
func AdoptDTypePolicy(l Layer, policy string) {
	c := l.Common()
	if _, input := l.(*InputLayer); !c.policySet && !input && !hostDTypes[l.ClassName()] {
		c.policy, c.policySet = policy, true
		if policy == "float32" {
			c.policy = ""
		}
	}
	for _, s := range Sublayers(l) {
		AdoptDTypePolicy(s.Layer, policy)
	}
}

// ComputeDType is the dtype a dtype policy computes in
// (backend.Autocaster): BFloat16 for "mixed_bfloat16"
// and "bfloat16", Float16 for "mixed_float16" and "float16", and Float32
// for "" (float32).
func ComputeDType(policy string) backend.DType {
	switch policy {
	case "mixed_bfloat16", "bfloat16":
		return backend.BFloat16
	case "mixed_float16", "float16":
		return backend.Float16
	}
	return backend.Float32
}

// callAutocast runs call on in with ctx's builder computing in l's
// policy's dtype (backend.Autocaster), as Keras computes a layer's call
// in its policy's compute dtype, and puts the setting back after, so
// that a float32 layer inside or after a mixed one computes in float32.
// Under a reduced-precision policy the layer's float inputs and outputs
// are rounded to that dtype, as Keras's are cast to it, keeping their
// masks; a float32Computer computes in float32 between the two.
func callAutocast(ctx *Context, l Layer, in []backend.Value, call func(in []backend.Value) []backend.Value) []backend.Value {
	a, ok := ctx.B.(backend.Autocaster)
	if !ok {
		return call(in)
	}
	d := ComputeDType(l.Common().policy)
	before := a.SetAutocast(d)
	defer a.SetAutocast(before)
	if d == backend.Float32 {
		return call(in)
	}
	round := func(vs []backend.Value) []backend.Value {
		out := make([]backend.Value, len(vs))
		for i, v := range vs {
			if v == nil {
				continue
			}
			out[i] = a.RoundToAutocast(v)
			if mk := ctx.KerasMask(v); mk != nil && out[i] != v {
				ctx.SetKerasMask(out[i], mk)
			}
		}
		return out
	}
	f, inFloat32 := l.(float32Computer)
	if !inFloat32 || f.castsInputs() {
		in = round(in)
	}
	if inFloat32 {
		a.SetAutocast(backend.Float32)
	}
	out := call(in)
	if inFloat32 {
		a.SetAutocast(d)
	}
	return round(out)
}

// float32Computer is a layer that, as Keras's normalization layers do
// for stability, computes in float32 under a reduced-precision policy
// and rounds only its outputs to the policy's compute dtype. castsInputs
// says whether Keras first casts its float inputs to the compute dtype:
// a layer with autocast=True does (BatchNormalization,
// RMSNormalization); LayerNormalization and GroupNormalization, with
// autocast=False, take them as they come.
type float32Computer interface {
	Layer
	castsInputs() bool
}

// roundedToPolicy is v rounded to l's policy's compute dtype on an
// engine that autocasts, as Keras reads an autocast variable inside a
// float32Computer's call (RMSNormalization's scale), and v itself
// otherwise.
func roundedToPolicy(ctx *Context, l Layer, v backend.Value) backend.Value {
	a, ok := ctx.B.(backend.Autocaster)
	d := ComputeDType(l.Common().policy)
	if !ok || d == backend.Float32 {
		return v
	}
	before := a.SetAutocast(d)
	defer a.SetAutocast(before)
	return a.RoundToAutocast(v)
}

// Output returns the output of the layer's first call (Keras's
// layer.output), or nil if it was never applied; for feature extraction:
// keras.NewModel(base.Inputs()[0], base.GetLayer("conv3").Common().Output())
// is a model that shares base's variables.
func (c *Base) Output() *KerasTensor {
	if len(c.calls) == 0 {
		return nil
	}
	return c.calls[0]
}

// Trainable reports whether training updates the layer's weights (Keras's
// layer.trainable; true unless SetTrainable(false) was called on it or on
// a layer holding it).
func (c *Base) Trainable() bool { return !c.frozen }

// SetTrainable freezes (false) or unfreezes (true) the layer's weights
// and those of every layer it holds (see Sublayers; a model's layers),
// like setting Keras 3's layer.trainable, e.g. to fine-tune only a new
// head on a pretrained base. As in Keras, a later setting of an inner
// layer wins: freeze a base, then unfreeze one of its layers, and that
// layer trains. Compile the model again afterwards, as Keras requires.
func (c *Base) SetTrainable(trainable bool) {
	c.frozen, c.trainableAt = !trainable, trainableClock.Add(1)
	if c.self == nil {
		c.trainablePending = true
		return
	}
	passTrainable(c.self)
}

// SetTrainable is l.Common().SetTrainable(trainable) for a layer that may
// not be applied yet (a model, a layer that holds others): it reaches the
// layers l holds at once.
func SetTrainable(l Layer, trainable bool) {
	bindSelf(l)
	l.Common().SetTrainable(trainable)
}

// trainableClock numbers SetTrainable calls.
var trainableClock atomic.Uint64

// passTrainable gives the layers l holds l's setting, unless they were
// set later themselves, and so on down.
func passTrainable(l Layer) {
	c := l.Common()
	for _, s := range Sublayers(l) {
		sc := s.Layer.Common()
		if sc.trainableAt < c.trainableAt {
			sc.frozen, sc.trainableAt = c.frozen, c.trainableAt
			bindSelf(s.Layer)
			passTrainable(s.Layer)
		}
	}
}

// bindSelf records l as the layer that embeds its Base, so that
// SetTrainable reaches the layers it holds, and passes on a setting made
// before.
func bindSelf(l Layer) {
	c := l.Common()
	if c.self == l {
		return
	}
	c.self = l
	if c.trainablePending {
		c.trainablePending = false
		passTrainable(l)
	}
}

// Common returns c; it lets *Base's embedders satisfy Layer.
func (c *Base) Common() *Base { return c }

// Weights returns the layer's weights in creation order.
func (c *Base) Weights() []*Weight { return c.weights }

// AddWeight returns the layer's weight called name, creating it with shape
// s and initializer init the first time. Creating it again with another
// shape is an error (a layer applied to inputs of two shapes).
func (c *Base) AddWeight(name string, s backend.Shape, init initializers.Initializer) (*Weight, error) {
	for _, w := range c.weights {
		if w.Name == name {
			if !w.Shape.Equal(s) {
				return nil, fmt.Errorf("weight %q was built with shape %v, now needs %v: a layer can only be applied to inputs of one shape", name, w.Shape, s)
			}
			return w, nil
		}
	}
	if err := checkWeightFits(name, s); err != nil {
		return nil, err
	}
	w := &Weight{Name: name, Shape: s.Clone(), Initializer: init, Trainable: true}
	c.weights = append(c.weights, w)
	return w, nil
}

// checkWeightFits refuses a weight whose values (float32, 4 bytes each)
// cannot fit in the memory the process has left, so that Dense{Units:
// 1 << 40} is an error when the layer is built instead of a fatal
// out-of-memory when its value is first made.
func checkWeightFits(name string, s backend.Shape) error {
	n := uint64(1)
	for _, d := range s {
		if d < 0 {
			return fmt.Errorf("weight %q has shape %v with a negative dimension", name, s)
		}
		if d != 0 && n > math.MaxUint64/4/uint64(d) {
			return fmt.Errorf("weight %q has shape %v: more values than any memory holds; check the layer's sizes (units, filters, input shape)", name, s)
		}
		n *= uint64(d)
	}
	need := 4 * n
	if need < 64<<20 {
		return nil // too small to be the problem; skip reading /proc
	}
	if left, ok := sysmem.Available(); ok && need > left {
		return fmt.Errorf("weight %q has shape %v: its values need %s, more than the %s of memory this process has left; check the layer's sizes (units, filters, input shape)", name, s, byteSize(need), byteSize(left))
	}
	return nil
}

// byteSize writes n bytes in binary units (12.0 GiB).
func byteSize(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Context is what a layer's Call sees besides its inputs.
type Context struct {
	// B builds the computation.
	B backend.Builder
	// Training is true in a training step (Dropout is active).
	Training bool
	// Values maps each weight to its value in this computation.
	Values map[*Weight]backend.Value

	updates map[*Weight]backend.Value
	losses  *[]backend.Value // AddLoss's terms, shared by InMode's copies
	masks   []backend.Value  // the current call's input masks (Mask)
	// kerasMasks is Keras's _keras_mask attribute of the values that
	// have one (KerasMask), shared by the context's copies.
	kerasMasks map[backend.Value]backend.Value
	// standIn: BuildByCall traces an unknown length as standInLength,
	// which Apply gives the sublayers it builds as -1.
	standIn bool
	// tracing is true in BuildByCall's shape-only run, where Apply
	// builds sublayers and Weight stands in for weights made meanwhile.
	tracing bool
	// callArgs are the arguments of the call being computed
	// (ApplyWithArguments), or nil.
	callArgs map[string]any
}

// withWeight returns a copy of ctx in which w has the value v, for a
// wrapper that computes its layer with a transformed weight
// (SpectralNormalization's normalized kernel).
func (ctx *Context) withWeight(w *Weight, v backend.Value) *Context {
	c := *ctx
	c.Values = maps.Clone(ctx.Values)
	c.Values[w] = v
	return &c
}

// CallArgument returns the call's Keras argument of that name, as
// ApplyWithArguments gave it (ReversibleEmbedding's "reverse"), or nil
// when the call has none.
func (ctx *Context) CallArgument(name string) any { return ctx.callArgs[name] }

// AddLoss adds a term to the loss the step minimises, as Keras's
// layer.add_loss in a call: a VAE's KL divergence, an activity penalty.
// A term that is not a scalar is summed. The compiled loss of Fit and
// Evaluate includes the terms of every layer call of the step, and the
// logged "loss" with them, as in Keras; Predict ignores them.
func (ctx *Context) AddLoss(v backend.Value) {
	if ctx.losses == nil || v == nil {
		return
	}
	if len(v.Shape()) > 0 {
		v = ctx.B.Sum(v)
	}
	*ctx.losses = append(*ctx.losses, v)
}

// addActivityPenalty adds the penalty of layer's activity regularizer
// (if any) on each of a call's outputs, divided by the batch size (Keras
// normalises it so, as its layer.__call__ does).
func (ctx *Context) addActivityPenalty(layer Layer, outs ...backend.Value) {
	if _, inside := layer.(interface{ penalizesInnerActivity() }); inside {
		return // the layer adds them itself, on values inside it
	}
	ctx.activityPenalty(layer.Common().ActivityRegularizer, outs...)
}

// activityPenalty adds r's penalty on each of outs, divided by the batch
// size.
func (ctx *Context) activityPenalty(r regularizers.Regularizer, outs ...backend.Value) {
	if r == nil || ctx.losses == nil {
		return
	}
	for _, o := range outs {
		p := r.Penalty(ctx.B, o)
		if s := o.Shape(); len(s) > 0 {
			p = ctx.B.Div(p, ctx.B.Scalar(float64(s[0])))
		}
		ctx.AddLoss(p)
	}
}

// CallNode runs the layer call that made t (its layer's Call, or
// CallOutputs for several outputs) on the inputs in ctx, adds the layer's
// activity penalty, and returns the call's outputs: what a model runs for
// each of its nodes.
func CallNode(ctx *Context, t *KerasTensor, in []backend.Value) []backend.Value {
	ctx.callArgs = t.Head().callArgs
	outs := callAutocast(ctx, t.layer, in, func(in []backend.Value) []backend.Value {
		if len(t.Head().outputs) > 1 {
			return t.layer.(MultiOutput).CallOutputs(ctx, in)
		}
		return []backend.Value{t.layer.Call(ctx, in)}
	})
	ctx.addActivityPenalty(t.layer, outs...)
	return outs
}

// Losses returns the terms AddLoss added in this computation.
func (ctx *Context) Losses() []backend.Value {
	if ctx.losses == nil {
		return nil
	}
	return *ctx.losses
}

// Weight returns the value of w in this computation. A weight the
// computation does not have (created after the model was built: a
// sublayer made or first built inside Call) fails the builder with an
// error that says how to hold it.
func (ctx *Context) Weight(w *Weight) backend.Value {
	v, ok := ctx.Values[w]
	if (!ok || v == nil) && ctx.tracing {
		return ctx.B.RandomUniform(w.Shape) // only its shape is read
	}
	if !ok || v == nil {
		return ctx.B.Fail(w.Shape, fmt.Errorf("the variable %q (shape %v) is not a variable of the model: a sublayer made or first built inside Call has variables the model never saw; hold sublayers in the layer's fields (see layers.Sublayers) and build them in its Build", w.Name, w.Shape))
	}
	return v
}

// Assign gives a non-trainable weight a new value at the end of a
// training step, as Keras's variable.assign in a layer's call
// (BatchNormalization's moving statistics). Outside training it does
// nothing.
func (ctx *Context) Assign(w *Weight, v backend.Value) {
	if !ctx.Training || ctx.updates == nil {
		return
	}
	ctx.updates[w] = v
}

// Updates returns the values Assign gave, by weight.
func (ctx *Context) Updates() map[*Weight]backend.Value { return ctx.updates }

// KerasTensor is a symbolic tensor of the functional API: an input of a
// model or the output of a layer applied to other KerasTensors. It records
// its shape (batch dimension -1) and where it came from. Errors are sticky:
// applying a layer to a KerasTensor that holds an error passes the error on,
// and keras.NewModel reports it.
type KerasTensor struct {
	shape    backend.Shape
	layer    Layer
	inputs   []*KerasTensor
	err      error
	training *bool // the call's fixed training mode (ApplyInMode), or nil
	// A layer with several outputs (MultiOutput) makes one KerasTensor
	// per output of a call: the first is the call's head, the others
	// point to it.
	index   int
	head    *KerasTensor
	outputs []*KerasTensor // on the head: every output of the call
	mask    *KerasTensor   // the call's explicit mask argument, or nil
	// callArgs are the call's own Keras arguments (ApplyWithArguments),
	// or nil.
	callArgs map[string]any
	// dtype is the tensor's dtype; onHost says it is known before the
	// engine runs: a model input's or a host layer's output's (the
	// engine's values are Float32).
	dtype  backend.DType
	onHost bool
	// hostForm says the call also has a host form (HostComputable on
	// host data), whose output's dtype is hostDType.
	hostForm  bool
	hostDType backend.DType
}

// DType returns the tensor's dtype: an input's (backend.String,
// backend.Int32, ...) or a host layer's output's (see HostLayer), and
// backend.Float32 for a value the engine computes.
func (t *KerasTensor) DType() backend.DType { return t.dtype }

// OnHost reports whether the tensor's values are known before the engine
// runs: a model input, or the output of a host layer applied to inputs.
func (t *KerasTensor) OnHost() bool { return t.onHost }

// HostForm reports whether the call is of an engine layer that can also
// compute on the host (HostComputable, on host data), and the dtype its
// host form gives: a model runs it there when a host layer reads it.
func (t *KerasTensor) HostForm() (backend.DType, bool) { return t.hostDType, t.hostForm }

// MaskArgument returns the call's explicit mask argument (Keras's
// layer(x, mask=m)), or nil when the layer takes its input's mask.
func (t *KerasTensor) MaskArgument() *KerasTensor { return t.Head().mask }

// SetMaskArgument makes m the call's mask argument (Keras's
// layer(x, mask=m)): a 0/1 tensor of the input's (batch, steps) that
// replaces the mask the input carries. keras.LoadModel sets it for the
// masks Keras 3 writes explicitly (NotEqual and Any feeding a layer's
// mask).
func (t *KerasTensor) SetMaskArgument(m *KerasTensor) { t.Head().mask = m }

// MultiOutput is implemented by layers that can have several outputs (an
// RNN with ReturnState: the output and the final states). Build returns
// the first output's shape; OutputShapes then gives all of them.
type MultiOutput interface {
	OutputShapes() []backend.Shape
	// CallOutputs computes every output; Call computes the first.
	CallOutputs(ctx *Context, inputs []backend.Value) []backend.Value
}

// Outputs returns every output of the layer call that made t (t alone
// for a single-output layer): Keras's list from lstm(x) with
// return_state=True.
func (t *KerasTensor) Outputs() []*KerasTensor {
	h := t.Head()
	if len(h.outputs) == 0 {
		return []*KerasTensor{h}
	}
	return append([]*KerasTensor(nil), h.outputs...)
}

// Head returns the first output of the call that made t.
func (t *KerasTensor) Head() *KerasTensor {
	if t.head != nil {
		return t.head
	}
	return t
}

// OutputIndex returns which output of its layer call t is (Keras's tensor
// index).
func (t *KerasTensor) OutputIndex() int { return t.index }

// Training returns the training mode the layer call was fixed to, if any
// (see ApplyInMode).
func (t *KerasTensor) Training() (training, fixed bool) {
	if t.training == nil {
		return false, false
	}
	return *t.training, true
}

// Shape returns the tensor's shape, with -1 for the batch dimension.
func (t *KerasTensor) Shape() backend.Shape { return t.shape.Clone() }

// Layer returns the layer that produced t (an *InputLayer for inputs).
func (t *KerasTensor) Layer() Layer { return t.layer }

// Inputs returns the tensors t's layer was applied to.
func (t *KerasTensor) Inputs() []*KerasTensor { return t.inputs }

// Err returns the first error met while building t.
func (t *KerasTensor) Err() error { return t.err }

// unknownDimsLayers names the layers that take inputs with a dimension
// of unknown length besides the batch (Keras's None): a sequence of any
// length, an image of any size.
const unknownDimsLayers = "InputLayer, Embedding, Masking, LSTM, GRU, SimpleRNN, Bidirectional, TimeDistributed, Dense, Conv1D, Conv2D, the 1-D and global poolings, " +
	"MultiHeadAttention, Attention, AdditiveAttention, the normalizations, the merge layers and Concatenate, ZeroPadding1D, Cropping1D, UpSampling1D, Permute, Dot, " +
	"Activation and the activation layers, Dropout and the noise layers, Rescaling and the random image layers"

// AnyLength is implemented by a layer of your own that takes inputs with
// a dimension of unknown length besides the batch (Keras's None, -1 in
// kerasgo): a sentence of any length, an image of any size. Its Call
// reads the lengths from its inputs' shapes, which are known when it
// runs, and its Build gives -1 where the output's length is the input's
// unknown one. A layer built from its Call (it defines no Build) is built
// by running Call on a stand-in length, and the layers it applies with
// Context.Apply see -1 there, so they too must take any length. Keras
// layers take unknown lengths unless they cannot; kerasgo asks a layer
// of your own to say so.
type AnyLength interface {
	Layer
	// TakesAnyLength marks the layer; it is never called.
	TakesAnyLength()
}

// takesUnknownDims reports whether layer takes an input with a dimension
// of unknown length besides the batch: its Build propagates -1, and its
// Call reads the lengths from its inputs.
func takesUnknownDims(layer Layer) bool {
	if _, ok := layer.(AnyLength); ok {
		return true
	}
	_, ok := layer.(interface{ takesUnknownDims() })
	return ok
}

// unknownBesidesBatch returns the first shape with a -1 after its first
// axis, or nil.
func unknownBesidesBatch(shapes []backend.Shape) backend.Shape {
	for _, s := range shapes {
		if s.UnknownAfterBatch() {
			return s
		}
	}
	return nil
}

// Input returns a model input of the given shape, not counting the batch
// dimension, like keras.Input(shape=...). A dimension of -1 is Keras's
// None: any length (a sequence of any length, an image of any size),
// which the layers that take it (the sequence layers: Embedding, Masking,
// the recurrent layers, attention, Conv1D, the 1-D poolings, the
// normalizations, the merge layers, Dense, ...; Conv2D and the image
// layers) read from the data; the model compiles a step for each shape it
// is given.
func Input(shape ...int) *KerasTensor {
	return NewInput(&InputLayer{Shape: shape})
}

// NewInput returns the model input of an input layer (its Shape and
// DType), as Input, IntInput and StringInput do.
func NewInput(l *InputLayer) *KerasTensor {
	out, err := l.Build(nil)
	return &KerasTensor{shape: out, layer: l, err: err, dtype: l.DType, onHost: true}
}

// Apply applies layer to inputs and returns the symbolic output. Shape
// errors are recorded in the result (see KerasTensor.Err) and name the
// layer.
func Apply(layer Layer, inputs ...*KerasTensor) *KerasTensor {
	return applyCall(layer, nil, inputs)
}

// PerCallArguments is implemented by layers whose calls take Keras call
// arguments that may differ from one call of the layer to the next, as
// ReversibleEmbedding's reverse: embedding(ids) embeds, and
// embedding(hidden, reverse=True) projects back with the same weights.
// Its Call reads them with Context.CallArgument.
type PerCallArguments interface {
	Layer
	// BuildCall is Build for a call with args, Keras's keyword arguments
	// by their names (as a .keras file records them in the call's node);
	// an argument the layer does not take is an error.
	BuildCall(inputs []backend.Shape, args map[string]any) (backend.Shape, error)
}

// ApplyWithArguments applies layer as Apply does, with Keras call
// arguments that belong to this call alone (see PerCallArguments):
// ApplyWithArguments(embedding, map[string]any{"reverse": true}, h) is
// Keras's embedding(h, reverse=True). The model's file records them in
// the call's node, as Keras's does.
func ApplyWithArguments(layer Layer, args map[string]any, inputs ...*KerasTensor) *KerasTensor {
	if _, ok := layer.(PerCallArguments); !ok && len(args) > 0 && !settings.IsNil(layer) {
		return &KerasTensor{layer: layer, inputs: inputs, err: fmt.Errorf("layer %s: call arguments %v: kerasgo's %s takes none that differ from call to call (set its options on the layer)", Describe(layer), args, layer.ClassName())}
	}
	return applyCall(layer, maps.Clone(args), inputs)
}

// CallArguments returns the Keras call arguments of the call that made t
// (ApplyWithArguments), or nil.
func (t *KerasTensor) CallArguments() map[string]any { return maps.Clone(t.Head().callArgs) }

// applyCall is Apply with the call's own arguments, if any.
func applyCall(layer Layer, args map[string]any, inputs []*KerasTensor) *KerasTensor {
	if settings.IsNil(layer) {
		return &KerasTensor{inputs: inputs, err: fmt.Errorf("Apply: the layer is a nil %T: make it first (e.g. &layers.Dense{Units: 8})", layer)}
	}
	bindSelf(layer)
	shapes := make([]backend.Shape, len(inputs))
	for i, in := range inputs {
		if in == nil {
			return &KerasTensor{layer: layer, err: fmt.Errorf("layer %s: input %d is nil", Describe(layer), i)}
		}
		if in.err != nil {
			return &KerasTensor{layer: layer, inputs: inputs, err: in.err}
		}
		shapes[i] = in.shape
	}
	var out backend.Shape
	dtype, onHost, hostDType, hostForm, err := applyDType(layer, inputs)
	if err != nil {
	} else if field, v, bad := settings.NonFinite(layer); bad {
		err = fmt.Errorf("%s is %v: give a finite number", field, v)
	} else if s := unknownBesidesBatch(shapes); s != nil && !takesUnknownDims(layer) {
		err = fmt.Errorf("input shape %v has a dimension of unknown length (-1, Keras's None) besides the batch, which kerasgo's %s cannot take yet (%s can, and a layer of your own that implements layers.AnyLength): give the dimension a length, or pad the data to one length", s, layer.ClassName(), unknownDimsLayers)
	} else if out, err = buildCall(layer, shapes, args); err == nil {
		if e := regularizers.CheckShape(layer.Common().ActivityRegularizer, out); e != nil {
			err = fmt.Errorf("activity_regularizer: %w", e)
		}
	}
	if err != nil {
		err = fmt.Errorf("layer %s: %w", Describe(layer), err)
	}
	t := &KerasTensor{shape: out, layer: layer, inputs: inputs, err: err, dtype: dtype, onHost: onHost, callArgs: args,
		hostForm: hostForm, hostDType: hostDType}
	if err == nil {
		layer.Common().calls = append(layer.Common().calls, t)
	}
	if mo, ok := layer.(MultiOutput); ok && err == nil {
		if shapes := mo.OutputShapes(); len(shapes) > 1 {
			t.outputs = []*KerasTensor{t}
			for i, s := range shapes[1:] {
				t.outputs = append(t.outputs, &KerasTensor{shape: s.Clone(), layer: layer, inputs: inputs, index: i + 1, head: t})
			}
		}
	}
	return t
}

// buildCall builds layer for a call with args (none: Build).
func buildCall(layer Layer, shapes []backend.Shape, args map[string]any) (backend.Shape, error) {
	if pc, ok := layer.(PerCallArguments); ok && len(args) > 0 {
		return pc.BuildCall(shapes, args)
	}
	return layer.Build(shapes)
}

// ApplyOutputs is Apply for a layer with several outputs: it returns them
// all, as Keras's lstm(x) does with return_state=True ([output, h, c]).
func ApplyOutputs(layer Layer, inputs ...*KerasTensor) []*KerasTensor {
	return Apply(layer, inputs...).Outputs()
}

// ApplyInMode applies layer like Apply but fixes this call's training
// mode, like calling a Keras layer with training=False (a Dropout that
// stays off, or BatchNormalization in inference mode, even during Fit).
func ApplyInMode(layer Layer, training bool, inputs ...*KerasTensor) *KerasTensor {
	t := Apply(layer, inputs...)
	t.training = &training
	for _, o := range t.outputs {
		o.training = &training
	}
	return t
}

// NewContext returns the context of one computation: the builder, whether
// it is a training step, and each weight's value.
func NewContext(b backend.Builder, training bool, values map[*Weight]backend.Value) *Context {
	return &Context{B: b, Training: training, Values: values, updates: map[*Weight]backend.Value{}, losses: new([]backend.Value),
		kerasMasks: map[backend.Value]backend.Value{}}
}

// InMode returns a copy of ctx in the given training mode that shares its
// weights and assignments.
func (ctx *Context) InMode(training bool) *Context {
	c := *ctx
	c.Training = training
	return &c
}

// Describe names a layer for messages: "\"dense_1\" (Dense)", or just the
// class before the model has named it.
func Describe(l Layer) string {
	if n := l.Common().Name; n != "" {
		return fmt.Sprintf("%q (%s)", n, l.ClassName())
	}
	return l.ClassName()
}

// sameShape is the Build of a layer that keeps its input's shape.
func sameShape(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// one checks that a layer got exactly one input.
func one(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("expects 1 input, received %d", len(inputs))
	}
	return inputs[0], nil
}

// kernelAndBias are the settings of a kernel and a bias that Dense and
// the convolutions share: Keras's use_bias, kernel_initializer,
// bias_initializer, kernel_regularizer, bias_regularizer,
// kernel_constraint and bias_constraint.
type kernelAndBias struct {
	noBias               bool
	kernelInit, biasInit string
	kernelReg, biasReg   regularizers.Regularizer
	kernelCon, biasCon   constraints.Constraint
}

// addKernelAndBias creates a layer's kernel of shape kshape and, unless
// noBias, a bias of size units, from Keras initializer names (defaults
// glorot_uniform and zeros), with their regularizers and constraints.
func (c *Base) addKernelAndBias(kshape backend.Shape, units int, kb kernelAndBias) (kernel, bias *Weight, err error) {
	kinit, err := initializers.Get(kb.kernelInit, initializers.GlorotUniform{})
	if err != nil {
		return nil, nil, err
	}
	if kernel, err = c.AddWeight("kernel", kshape, kinit); err != nil {
		return nil, nil, err
	}
	if err := regularize(kernel, "kernel", kb.kernelReg, kb.kernelCon); err != nil {
		return nil, nil, err
	}
	if kb.noBias {
		if kb.biasReg != nil || kb.biasCon != nil {
			return nil, nil, fmt.Errorf("a bias regularizer or constraint was given with use_bias=False (NoBias): drop it, or keep the bias")
		}
		return kernel, nil, nil
	}
	binit, err := initializers.Get(kb.biasInit, initializers.Constant{})
	if err != nil {
		return nil, nil, err
	}
	if bias, err = c.AddWeight("bias", backend.Shape{units}, binit); err != nil {
		return nil, nil, err
	}
	return kernel, bias, regularize(bias, "bias", kb.biasReg, kb.biasCon)
}

// Named sets l's name (Keras's name= argument) and returns l, for use in
// a literal: layers.Named("priority", &layers.Dense{Units: 1}). In a
// model with several outputs, the output layers' names name the outputs'
// data, losses and logs.
func Named[L Layer](name string, l L) L {
	l.Common().Name = name
	return l
}

// NamedInput returns a model input called name, like
// keras.Input(shape=..., name=...): with several inputs, Fit, Evaluate
// and Predict can take the data by these names (keras.NamedArrays).
func NamedInput(name string, shape ...int) *KerasTensor {
	t := Input(shape...)
	t.layer.Common().Name = name
	return t
}
