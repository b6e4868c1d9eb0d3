//go:build libtorch

package libtorch

// extern void at_manual_seed(long long);
// extern void at_set_num_threads(int);
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/kerasgo/kerasgo/internal/recycle"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch"
	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

func init() {
	backend.Register(Name, Open)
}

// the worker is shared: libtorch state (threads, seeds) is process-wide.
var sharedWorker = newWorker()

// threads is libtorch's thread count: $OMP_NUM_THREADS when set (as in
// PyTorch; launchers of data-parallel jobs set it so that the processes
// share the cores), else GOMAXPROCS.
func threads() int {
	if n, err := strconv.Atoi(os.Getenv("OMP_NUM_THREADS")); err == nil && n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Open returns the engine on device "" or "cpu", "cuda" or "cuda:N".
func Open(device string) (backend.Backend, error) {
	e := &engine{w: sharedWorker}
	err := e.w.do(func() error {
		if err := keepFreedPagesOnce(); err != nil {
			return err
		}
		C.at_set_num_threads(C.int(threads()))
		switch {
		case device == "" || device == "cpu":
			e.device, e.devName = gotch.CPU, "cpu"
			blasThreads()
			return prepareSysmon()
		case device == "cuda" || strings.HasPrefix(device, "cuda:"):
			var cu gotch.Cuda
			if !cu.IsAvailable() {
				return fmt.Errorf("no CUDA device is available to this libtorch (%s): use \"libtorch:cpu\", or a libtorch built with CUDA on a machine with an NVIDIA GPU", device)
			}
			idx := 0
			if n, ok := strings.CutPrefix(device, "cuda:"); ok {
				var err error
				if idx, err = strconv.Atoi(n); err != nil || idx < 0 {
					return fmt.Errorf("bad CUDA device %q: use cuda or cuda:N", device)
				}
			}
			if count := int(cu.DeviceCount()); idx >= count {
				return fmt.Errorf("CUDA device %d does not exist: this machine has %d", idx, count)
			}
			e.device, e.devName = gotch.CudaBuilder(uint(idx)), fmt.Sprintf("cuda:%d", idx)
			return nil
		}
		return fmt.Errorf("unknown libtorch device %q: use cpu, cuda or cuda:N", device)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

type engine struct {
	w       *worker
	device  gotch.Device
	devName string
}

// tensor is the engine's Tensor. It owns its libtorch tensor. An update
// op's output carries the lease under which Release gives its memory back
// to the program for a later update to write into, and where that memory
// lies (see spares.go).
type tensor struct {
	t     *ts.Tensor
	shape backend.Shape
	dtype backend.DType
	lease *recycle.Lease[tensor]
	ext   extent
	// fresh marks an upload's memory, no other tensor's, until a Run
	// returns an output over it (leaseOutputs): a training step may write
	// its update into it (donation.go). The engine's worker alone reads
	// and clears it after the upload.
	fresh bool
}

func (t *tensor) Shape() backend.Shape { return t.shape.Clone() }
func (t *tensor) DType() backend.DType { return t.dtype }

func (e *engine) Name() string { return Name }

func (e *engine) Capabilities() backend.Capabilities {
	return backend.Capabilities{DTypes: []backend.DType{backend.Float32, backend.Float64}, Autocast: autocastDTypes(e.devName), Device: e.devName}
}

func kind(d backend.DType) gotch.DType {
	switch d {
	case backend.Float64:
		return gotch.Double
	case backend.Int32:
		return gotch.Int
	}
	return gotch.Float
}

func dims(s backend.Shape) []int64 {
	out := make([]int64, len(s))
	for i, d := range s {
		out[i] = int64(d)
	}
	return out
}

// upload copies n host values at data (float32s or float64s, as dt says)
// into a new tensor on the device: into an uninitialized CPU tensor
// (uploadDirect; gotch's OfSlice would encode it through encoding/binary
// first), then, for a GPU, from there to the device.
func (e *engine) upload(data unsafe.Pointer, n int, s backend.Shape, dt backend.DType) (backend.Tensor, error) {
	var empty float64 // backend.Open's guard checked that n values fill s
	if n == 0 {
		data = unsafe.Pointer(&empty)
	}
	elem := uint(4)
	if dt == backend.Float64 {
		elem = 8
	}
	d := dims(s)
	rank := uint(len(d))
	if rank == 0 {
		d = []int64{1} // libtorch reads no dimension, but gotch takes &d[0]
	}
	if n > 0 && rank > 0 {
		out, err := e.uploadDirect(data, n, elem, d, s, dt)
		runtime.KeepAlive(data)
		if err != nil {
			return nil, err
		}
		if e.devName != "cpu" {
			// Then one copy to the GPU, on the op thread (the device's).
			err = e.w.do(func() error {
				t, err := out.t.ToDevice(e.device, kind(dt), false, false, true)
				if err != nil {
					return err
				}
				out.t = t
				if out.ext, err = extentOf(t, s); err != nil {
					out.fresh = false
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var out *tensor
	err := e.w.do(func() error {
		c := lib.AtTensorOfData(data, d, rank, elem, int(kind(dt).CKind()))
		if err := ts.TorchErr(); err != nil {
			return err
		}
		t := ts.New(c)
		if e.devName != "cpu" {
			var err error
			if t, err = t.ToDevice(e.device, kind(dt), false, false, true); err != nil {
				return err
			}
		}
		out = &tensor{t: t, shape: s.Clone(), dtype: dt}
		return nil
	})
	runtime.KeepAlive(data)
	if err != nil { // a nil *tensor in a backend.Tensor would not be nil
		return nil, err
	}
	return out, nil
}

// uploadDirect is upload into a CPU tensor on the calling goroutine: an
// uninitialized tensor (at_tensor_of_data would zero it first, with
// OpenMP threads for a large one) and one copy into its memory.
func (e *engine) uploadDirect(data unsafe.Pointer, n int, elem uint, d []int64, s backend.Shape, dt backend.DType) (*tensor, error) {
	var out *tensor
	err := direct(func() error {
		t, err := ts.Empty(d, kind(dt), gotch.CPU)
		if err != nil {
			return err
		}
		dst, err := t.DataPtr()
		if err != nil {
			t.Drop()
			return err
		}
		size := n * int(elem)
		copy(unsafe.Slice((*byte)(dst), size), unsafe.Slice((*byte)(data), size))
		lo := uintptr(dst)
		out = &tensor{t: t, shape: s.Clone(), dtype: dt, fresh: true, ext: extent{lo: lo, hi: lo + uintptr(size)}}
		return nil
	})
	return out, err
}

func (e *engine) FromFloat32(data []float32, s backend.Shape) (backend.Tensor, error) {
	return e.upload(unsafe.Pointer(unsafe.SliceData(data)), len(data), s, backend.Float32)
}

func (e *engine) FromFloat64(data []float64, s backend.Shape) (backend.Tensor, error) {
	return e.upload(unsafe.Pointer(unsafe.SliceData(data)), len(data), s, backend.Float64)
}

// FromInt32 uploads integer data (token ids) as an int32 tensor.
func (e *engine) FromInt32(data []int32, s backend.Shape) (backend.Tensor, error) {
	return e.upload(unsafe.Pointer(unsafe.SliceData(data)), len(data), s, backend.Int32)
}

// download copies a tensor to the host as dtype want.
func (e *engine) download(t backend.Tensor, want gotch.DType, dst any) error {
	lt, ok := t.(*tensor)
	if !ok {
		return fmt.Errorf("tensor %T does not belong to the libtorch backend", t)
	}
	if e.devName == "cpu" {
		if done, err := e.downloadDirect(lt, dst); done {
			return err
		}
	}
	return e.w.do(func() error {
		host, err := lt.t.ToDevice(gotch.CPU, want, false, true, false)
		if err != nil {
			return err
		}
		defer host.Drop()
		c, err := host.Contiguous(false)
		if err != nil {
			return err
		}
		defer c.Drop()
		return c.CopyData(dst, uint(lt.shape.Size()))
	})
}

// downloadDirect copies a contiguous CPU tensor of dtype float32 or
// float64 to dst on the calling goroutine, converting float32 to float64
// in Go. It reports false, having copied nothing, for any other tensor
// (and where libtorch will not tell where the data lies): converting
// those runs libtorch ops, on the worker.
func (e *engine) downloadDirect(lt *tensor, dst any) (done bool, err error) {
	if lt.dtype != backend.Float32 && lt.dtype != backend.Float64 {
		return false, nil
	}
	n := lt.shape.Size()
	err = direct(func() error {
		contiguous, err := lt.t.IsContiguous()
		if err != nil || !contiguous {
			return nil
		}
		src, err := lt.t.DataPtr()
		if err != nil {
			return nil
		}
		done = true
		switch out := dst.(type) {
		case []float32:
			convertFrom(out, src, n, lt.dtype)
		case []float64:
			convertFrom(out, src, n, lt.dtype)
		default:
			done = false
		}
		return nil
	})
	runtime.KeepAlive(lt)
	return done || err != nil, err // err: a panic, as an error
}

// convertFrom copies n values of dtype dt at src into dst.
func convertFrom[D float32 | float64](dst []D, src unsafe.Pointer, n int, dt backend.DType) {
	if dt == backend.Float64 {
		backend.Convert(dst, unsafe.Slice((*float64)(src), n))
	} else {
		backend.Convert(dst, unsafe.Slice((*float32)(src), n))
	}
}

func (e *engine) ToFloat32(t backend.Tensor) ([]float32, error) {
	out := make([]float32, t.Shape().Size())
	if len(out) == 0 {
		return out, nil
	}
	return out, e.download(t, gotch.Float, out)
}

func (e *engine) ToFloat64(t backend.Tensor) ([]float64, error) {
	out := make([]float64, t.Shape().Size())
	if len(out) == 0 {
		return out, nil
	}
	return out, e.download(t, gotch.Double, out)
}

func (e *engine) Close() error { return nil }

// Release frees the tensors' libtorch memory now, or gives an update op's
// output back to its program (spares.go).
func (e *engine) Release(tensors ...backend.Tensor) {
	run := e.w.do
	if e.devName == "cpu" {
		run = direct // freeing CPU memory runs no op
	}
	run(func() error {
		for _, t := range tensors {
			if lt, ok := t.(*tensor); ok && lt != nil && lt.lease.Return(lt) {
				lt.t.Drop()
			}
		}
		return nil
	})
}

// seed seeds libtorch's global generator (RandomUniform).
func seed(s int64) { C.at_manual_seed(C.longlong(s)) }
