//go:build libtorch && cgo

package c10d

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/kerasgo/kerasgo/internal/netroute"
	"github.com/kerasgo/kerasgo/keras/distribution"
)

// Available returns nil when this build can open process groups, else why
// not (no libtorch build tag, or no Gloo headers when it was compiled).
func Available() error {
	var cerr *C.char
	if C.kg_available(&cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// NCCLCompiled reports whether this build has c10d's NCCL process group,
// which CUDA tensors go through when a GPU is present: only when it was
// compiled against a CUDA libtorch with NCCL's headers (make torch-env's
// PyPI torch; see docs/distributed.md).
func NCCLCompiled() bool { return C.kg_nccl_compiled() == 1 }

// TorchVersion is the version of the libtorch this build links ("1.13.1",
// "2.9.1"). A launcher (torchrun) and any Python rank of the same job must
// run a PyTorch of the same major and minor version: c10d's wire protocol
// changed between 1.13 and 2.x, and a mismatch shows only as connections
// reset while the ranks join.
func TorchVersion() string { return C.GoString(C.kg_torch_version()) }

// Options says where a process sits in a group and how to reach the
// others.
type Options = distribution.GroupOptions

// Group is a c10d process group over Gloo. Its methods must be called by
// every rank in the same order; one goroutine at a time.
type Group struct {
	g    *C.kg_group
	opts Options
}

// Open joins the group: it returns once all WorldSize processes have
// connected, or fails after the timeout (see join for what it says).
func Open(o Options) (*Group, error) {
	if o.Rank != 0 || o.AgentStorePrefix != "" {
		// A client of the store: libtorch 2.x's own connect retries for
		// about twice the timeout before it gives up.
		if err := waitForStore(o.Host, o.Port, o.Timeout); err != nil {
			return nil, err
		}
	}
	if o.Interface == "" && o.Address == "" {
		// The address that routes to the store's host (see
		// distribution.GroupOptions); Gloo's default when there is none.
		if ip, err := netroute.Resolve(o.Host); err == nil {
			if src, err := netroute.To(ip, o.Port); err == nil {
				o.Address = src.IP.String()
			}
		}
	}
	g, err := openStore(o)
	if err != nil {
		return nil, err
	}
	grp := &Group{g: g, opts: o}
	if err := grp.join(); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(grp, (*Group).Close)
	return grp, nil
}

// Close leaves the group. Closing twice is allowed.
func (g *Group) Close() error {
	if g.g != nil {
		C.kg_group_free(g.g)
		g.g = nil
	}
	return nil
}

// NCCL reports whether the group sums CUDA tensors (AllReduceTensor)
// through NCCL's process group: in a build with NCCL (NCCLCompiled) on a
// machine that had a GPU when the group was opened. Otherwise they go
// through Gloo like host buffers.
func (g *Group) NCCL() bool { return g.g != nil && C.kg_group_uses_nccl(g.g) == 1 }

// call runs one shim function on the open group, turning its failure into
// an error.
func (g *Group) call(f func(cerr **C.char) C.int) error {
	if g.g == nil {
		return errors.New("c10d: the process group is closed")
	}
	var cerr *C.char
	if f(&cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// The shim's host dtypes.
const (
	hostFloat32 C.int = 0
	hostFloat64 C.int = 1
)

// onHost passes a host buffer to a shim function; an empty one needs no
// call.
func onHost[T float32 | float64](g *Group, data []T, f func(p unsafe.Pointer, n C.int64_t, dtype C.int, cerr **C.char) C.int) error {
	if len(data) == 0 {
		return nil
	}
	dtype := hostFloat32
	if _, ok := any(data).([]float64); ok {
		dtype = hostFloat64
	}
	return g.call(func(cerr **C.char) C.int { return f(unsafe.Pointer(&data[0]), C.int64_t(len(data)), dtype, cerr) })
}

func (g *Group) allReduce(p unsafe.Pointer, n C.int64_t, dtype C.int, cerr **C.char) C.int {
	return C.kg_allreduce_host(g.g, p, n, dtype, cerr)
}

func (g *Group) broadcastFrom(root int) func(unsafe.Pointer, C.int64_t, C.int, **C.char) C.int {
	return func(p unsafe.Pointer, n C.int64_t, dtype C.int, cerr **C.char) C.int {
		return C.kg_broadcast_host(g.g, p, n, dtype, C.int(root), cerr)
	}
}

// AllReduceFloat32 sums data in place across all ranks.
func (g *Group) AllReduceFloat32(data []float32) error { return onHost(g, data, g.allReduce) }

// AllReduceFloat64 sums data in place across all ranks.
func (g *Group) AllReduceFloat64(data []float64) error { return onHost(g, data, g.allReduce) }

// AllReduceTensor sums a libtorch tensor (a torch::Tensor*, gotch's
// Ctensor) in place across all ranks, without copying it.
func (g *Group) AllReduceTensor(tensor unsafe.Pointer) error {
	return g.call(func(cerr **C.char) C.int { return C.kg_allreduce_tensor(g.g, tensor, cerr) })
}

// BroadcastFloat32 copies root's data to every rank.
func (g *Group) BroadcastFloat32(data []float32, root int) error {
	return onHost(g, data, g.broadcastFrom(root))
}

// BroadcastFloat64 copies root's data to every rank.
func (g *Group) BroadcastFloat64(data []float64, root int) error {
	return onHost(g, data, g.broadcastFrom(root))
}

// Barrier returns when every rank has called it.
func (g *Group) Barrier() error {
	return g.call(func(cerr **C.char) C.int { return C.kg_barrier(g.g, cerr) })
}

// SetKey writes key=value into the group's store.
func (g *Group) SetKey(key, value string) error {
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	return g.call(func(cerr **C.char) C.int { return C.kg_store_set(g.g, k, v, cerr) })
}

// Add adds delta to the counter at key in the group's store and returns
// the new count (Add(key, 0) reads it).
func (g *Group) Add(key string, delta int64) (int64, error) {
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	var v C.int64_t
	err := g.call(func(cerr **C.char) C.int { return C.kg_store_add(g.g, k, C.int64_t(delta), &v, cerr) })
	return int64(v), err
}

// Get reads key from the group's store, waiting for it up to the timeout.
func (g *Group) Get(key string) (string, error) {
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	var v *C.char
	err := g.call(func(cerr **C.char) C.int { return C.kg_store_get(g.g, k, &v, cerr) })
	if v != nil {
		defer C.free(unsafe.Pointer(v))
	}
	if err != nil {
		return "", err
	}
	return C.GoString(v), nil
}

// HasKeys reports, for each key, whether the store has it.
func (g *Group) HasKeys(keys []string) ([]bool, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	ck := C.malloc(C.size_t(len(keys)) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(ck)
	ptrs := unsafe.Slice((**C.char)(ck), len(keys))
	for i, k := range keys {
		ptrs[i] = C.CString(k)
		defer C.free(unsafe.Pointer(ptrs[i]))
	}
	found := make([]C.int, len(keys))
	if err := g.call(func(cerr **C.char) C.int {
		return C.kg_store_check(g.g, (**C.char)(ck), C.int(len(keys)), &found[0], cerr)
	}); err != nil {
		return nil, err
	}
	out := make([]bool, len(keys))
	for i, f := range found {
		out[i] = f != 0
	}
	return out, nil
}

func takeError(cerr *C.char) error {
	if cerr == nil {
		return errors.New("c10d: unknown error")
	}
	defer C.free(unsafe.Pointer(cerr))
	return fmt.Errorf("c10d: %s", C.GoString(cerr))
}
