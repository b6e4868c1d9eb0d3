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
// connected, or fails after the timeout.
func Open(o Options) (*Group, error) {
	host := C.CString(o.Host)
	defer C.free(unsafe.Pointer(host))
	ifname := C.CString(o.Interface)
	defer C.free(unsafe.Pointer(ifname))
	prefix := C.CString(o.AgentStorePrefix)
	defer C.free(unsafe.Pointer(prefix))
	var g *C.kg_group
	var cerr *C.char
	if C.kg_group_new(host, C.int(o.Port), C.int(o.Rank), C.int(o.WorldSize), C.int64_t(o.Timeout.Milliseconds()), ifname, prefix, &g, &cerr) != 0 {
		return nil, takeError(cerr)
	}
	grp := &Group{g: g, opts: o}
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

func (g *Group) check() error {
	if g.g == nil {
		return errors.New("c10d: the process group is closed")
	}
	return nil
}

// AllReduceFloat32 sums data in place across all ranks.
func (g *Group) AllReduceFloat32(data []float32) error {
	if err := g.check(); err != nil || len(data) == 0 {
		return err
	}
	var cerr *C.char
	if C.kg_allreduce_host(g.g, unsafe.Pointer(&data[0]), C.int64_t(len(data)), 0, &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// AllReduceFloat64 sums data in place across all ranks.
func (g *Group) AllReduceFloat64(data []float64) error {
	if err := g.check(); err != nil || len(data) == 0 {
		return err
	}
	var cerr *C.char
	if C.kg_allreduce_host(g.g, unsafe.Pointer(&data[0]), C.int64_t(len(data)), 1, &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// AllReduceTensor sums a libtorch tensor (a torch::Tensor*, gotch's
// Ctensor) in place across all ranks, without copying it.
func (g *Group) AllReduceTensor(tensor unsafe.Pointer) error {
	if err := g.check(); err != nil {
		return err
	}
	var cerr *C.char
	if C.kg_allreduce_tensor(g.g, tensor, &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// BroadcastFloat32 copies root's data to every rank.
func (g *Group) BroadcastFloat32(data []float32, root int) error {
	if err := g.check(); err != nil || len(data) == 0 {
		return err
	}
	var cerr *C.char
	if C.kg_broadcast_host(g.g, unsafe.Pointer(&data[0]), C.int64_t(len(data)), 0, C.int(root), &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// BroadcastFloat64 copies root's data to every rank.
func (g *Group) BroadcastFloat64(data []float64, root int) error {
	if err := g.check(); err != nil || len(data) == 0 {
		return err
	}
	var cerr *C.char
	if C.kg_broadcast_host(g.g, unsafe.Pointer(&data[0]), C.int64_t(len(data)), 1, C.int(root), &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// Barrier returns when every rank has called it.
func (g *Group) Barrier() error {
	if err := g.check(); err != nil {
		return err
	}
	var cerr *C.char
	if C.kg_barrier(g.g, &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// SetKey writes key=value into the group's store.
func (g *Group) SetKey(key, value string) error {
	if err := g.check(); err != nil {
		return err
	}
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	var cerr *C.char
	if C.kg_store_set(g.g, k, v, &cerr) != 0 {
		return takeError(cerr)
	}
	return nil
}

// Add adds delta to the counter at key in the group's store and returns
// the new count (Add(key, 0) reads it).
func (g *Group) Add(key string, delta int64) (int64, error) {
	if err := g.check(); err != nil {
		return 0, err
	}
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	var v C.int64_t
	var cerr *C.char
	if C.kg_store_add(g.g, k, C.int64_t(delta), &v, &cerr) != 0 {
		return 0, takeError(cerr)
	}
	return int64(v), nil
}

// HasKeys reports, for each key, whether the store has it.
func (g *Group) HasKeys(keys []string) ([]bool, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
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
	var cerr *C.char
	if C.kg_store_check(g.g, (**C.char)(ck), C.int(len(keys)), &found[0], &cerr) != 0 {
		return nil, takeError(cerr)
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
