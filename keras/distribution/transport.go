package distribution

import (
	"errors"
	"time"
)

// Group is a process group as a transport provides it: collectives over
// every process of the job, and the job's key-value store. Package
// keras/distribution/c10d provides PyTorch's c10d; import it for its
// side effect:
//
//	import _ "github.com/kerasgo/kerasgo/keras/distribution/c10d"
type Group interface {
	AllReduceFloat32(data []float32) error
	AllReduceFloat64(data []float64) error
	BroadcastFloat32(data []float32, root int) error
	BroadcastFloat64(data []float64, root int) error
	Barrier() error
	SetKey(key, value string) error
	HasKeys(keys []string) ([]bool, error)
	// Add adds delta to the counter at key and returns the new count.
	Add(key string, delta int64) (int64, error)
	Close() error
}

// GroupOptions says where a process sits in a group and how to reach the
// others.
type GroupOptions struct {
	Host      string        // the address of rank 0, which hosts the store
	Port      int           // the store's port
	Rank      int           // this process, from 0
	WorldSize int           // processes in the group
	Timeout   time.Duration // of the rendezvous and of each collective
	// Interface is the network interface Gloo binds (GLOO_SOCKET_IFNAME);
	// when empty, Address is the address it binds and advertises to the
	// other processes; when both are empty, the address of this machine
	// that routes to Host (not, as PyTorch, the address the host name
	// resolves to, which is loopback on many machines).
	Interface string
	Address   string
	// AgentStorePrefix, when not empty, says that the launcher hosts the
	// store (torchrun's agent) and the group's keys live under this prefix.
	AgentStorePrefix string
}

// Transport opens process groups. Register one with RegisterTransport.
type Transport struct {
	// Open joins a group: it returns once all processes have joined.
	Open func(GroupOptions) (Group, error)
	// Available returns nil when Open can work in this build, else why
	// not and how to fix it.
	Available func() error
}

var transport *Transport

// RegisterTransport makes t the way NewDataParallel joins a job; the c10d
// package calls it in its init.
func RegisterTransport(t Transport) { transport = &t }

var errNoTransport = errors.New(`no distributed transport is linked into this program: add import _ "github.com/kerasgo/kerasgo/keras/distribution/c10d" (PyTorch's c10d) and build with the libtorch engine; see docs/distributed.md`)

// Available returns nil when this program can train distributed, else why
// not and how to fix it (no transport imported, a build without libtorch,
// or one compiled without Gloo's headers).
func Available() error {
	if transport == nil {
		return errNoTransport
	}
	return transport.Available()
}
