//go:build !libtorch || !cgo

package c10d

import (
	"unsafe"

	"github.com/kerasgo/kerasgo/keras/distribution"
)

// Available returns nil when this build can open process groups, else why
// not: here, ErrNotBuilt.
func Available() error { return ErrNotBuilt }

// NCCLCompiled reports whether this build has c10d's NCCL process group:
// here, false.
func NCCLCompiled() bool { return false }

// TorchVersion is the version of the libtorch this build links: here,
// none ("").
func TorchVersion() string { return "" }

// Options says where a process sits in a group and how to reach the
// others.
type Options = distribution.GroupOptions

// Group is a c10d process group; without libtorch none can be opened.
type Group struct{}

// Open returns ErrNotBuilt.
func Open(Options) (*Group, error) { return nil, ErrNotBuilt }

// Close does nothing.
func (g *Group) Close() error { return nil }

// AllReduceFloat32 returns ErrNotBuilt.
func (g *Group) AllReduceFloat32([]float32) error { return ErrNotBuilt }

// AllReduceFloat64 returns ErrNotBuilt.
func (g *Group) AllReduceFloat64([]float64) error { return ErrNotBuilt }

// BroadcastFloat32 returns ErrNotBuilt.
func (g *Group) BroadcastFloat32([]float32, int) error { return ErrNotBuilt }

// BroadcastFloat64 returns ErrNotBuilt.
func (g *Group) BroadcastFloat64([]float64, int) error { return ErrNotBuilt }

// Barrier returns ErrNotBuilt.
func (g *Group) Barrier() error { return ErrNotBuilt }

// SetKey returns ErrNotBuilt.
func (g *Group) SetKey(string, string) error { return ErrNotBuilt }

// Add returns ErrNotBuilt.
func (g *Group) Add(string, int64) (int64, error) { return 0, ErrNotBuilt }

// Get returns ErrNotBuilt.
func (g *Group) Get(string) (string, error) { return "", ErrNotBuilt }

// HasKeys returns ErrNotBuilt.
func (g *Group) HasKeys([]string) ([]bool, error) { return nil, ErrNotBuilt }

// AllReduceTensor returns ErrNotBuilt.
func (g *Group) AllReduceTensor(unsafe.Pointer) error { return ErrNotBuilt }

// NCCL reports false: this build has no c10d.
func (g *Group) NCCL() bool { return false }
