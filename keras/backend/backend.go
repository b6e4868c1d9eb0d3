package backend

// Backend is an engine that compiles and runs [Func]s. Implementations must be
// safe for concurrent use by many goroutines (a Model's concurrent Predict
// calls share its Backend); an [Executable] runs one call at a time, and
// kerasgo gives each goroutine its own.
type Backend interface {
	// Name returns the name the backend was opened with, e.g. "gorgonia".
	Name() string
	// Capabilities reports what this engine supports.
	Capabilities() Capabilities
	// FromFloat32 copies host data into a new engine tensor of dtype Float32.
	FromFloat32(data []float32, s Shape) (Tensor, error)
	// FromFloat64 copies host data into a new engine tensor of dtype Float64.
	FromFloat64(data []float64, s Shape) (Tensor, error)
	// FromInt32 copies host data into a new engine tensor of dtype Int32
	// (token ids, for a Func's int inputs).
	FromInt32(data []int32, s Shape) (Tensor, error)
	// ToFloat32 copies an engine tensor to the host, converting to float32.
	ToFloat32(t Tensor) ([]float32, error)
	// ToFloat64 copies an engine tensor to the host, converting to float64.
	ToFloat64(t Tensor) ([]float64, error)
	// Compile prepares fn for inputs of the given specs. The returned
	// Executable may only be run with inputs of exactly these shapes and
	// dtypes; compile again for other shapes (kerasgo caches one Executable
	// per shape).
	Compile(fn Func, inputs []Spec, opts CompileOptions) (Executable, error)
	// Release frees the memory of tensors the caller will not use again,
	// now rather than when Go's garbage collector finds them (which knows
	// nothing of C or GPU memory), or recycles it: a released tensor may
	// be overwritten by a later run's outputs, so it must not be read
	// after. Releasing nil is allowed.
	Release(ts ...Tensor)
	// Close releases everything the backend holds.
	Close() error
}

// CompileOptions tune how a Func is compiled.
type CompileOptions struct {
	// Seed seeds the engine's random ops (RandomUniform) in this Executable,
	// so a training run is reproducible: the numbers a Run draws depend only
	// on Seed and the Run's step number (Executable.SetStep).
	Seed int64
}

// Capabilities describes an engine.
type Capabilities struct {
	// DTypes lists the element types the engine computes in.
	DTypes []DType
	// Autocast lists the half-precision dtypes (BFloat16, Float16) the
	// engine computes the ops of a float32 Func in when
	// a Func asks it to (Autocaster: Keras's mixed-precision policies);
	// empty if it computes them in float32 only.
	Autocast []DType
	// Device names where computation runs, e.g. "cpu" or "cuda:0".
	Device string
}

// Tensor is an engine-owned n-dimensional array. Copy it to the host with
// the Backend's ToFloat32/ToFloat64.
type Tensor interface {
	Shape() Shape
	DType() DType
}

// Func describes a computation: given symbolic inputs, it calls Builder ops
// and returns the symbolic outputs. It must not keep the Values after it
// returns. Errors from ops are sticky in the Builder (see Builder.Err), so a
// Func may call ops without checking each one and return b.Err() at the end.
type Func func(b Builder, inputs []Value) ([]Value, error)

// Executable is a compiled Func. It runs one call at a time: goroutines
// that run the same Func at once compile one each.
type Executable interface {
	// Run executes the function. Inputs must match the specs given to
	// Compile. The returned tensors belong to the caller and stay valid
	// across later runs.
	Run(inputs []Tensor) ([]Tensor, error)
	// SetStep sets the step number of the next Run (each Run adds one; the
	// first is 1). A Run's random ops draw from a stream chosen by
	// CompileOptions.Seed and its step number alone, so that training
	// resumed at step n draws what an uninterrupted run drew there.
	SetStep(step int64)
	// Close releases the compiled program.
	Close() error
}
