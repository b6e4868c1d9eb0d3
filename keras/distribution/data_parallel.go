package distribution

import (
	"fmt"
	"sort"
	"strconv"
	"time"
	"unsafe"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// DataParallel is this process's membership of a data-parallel job (Keras
// 3's keras.distribution.DataParallel, PyTorch's DistributedDataParallel).
// Give it to keras.CompileOptions.Distribution: Fit then trains on this
// process's shard of each epoch and averages gradients with the others;
// Evaluate and Predict split the data and gather the results. Its methods
// must be called by every process in the same order, from one goroutine.
type DataParallel struct {
	cfg   Config
	group Group
}

// NewDataParallel joins the job described by cfg (zero fields come from
// the launcher's environment, see Config): it returns once every process
// has joined, or fails after cfg.Timeout.
func NewDataParallel(cfg Config) (*DataParallel, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, fmt.Errorf("distribution: %w", err)
	}
	if err := Available(); err != nil {
		return nil, err
	}
	o := GroupOptions{Host: cfg.MasterAddr, Port: cfg.MasterPort, Rank: cfg.Rank, WorldSize: cfg.WorldSize, Timeout: cfg.Timeout, Interface: cfg.Interface}
	if cfg.AgentStore {
		o.AgentStorePrefix = fmt.Sprintf("/worker/attempt_%d", cfg.Attempt) // torch.distributed's prefix
	}
	g, err := transport.Open(o)
	if err != nil {
		return nil, fmt.Errorf("rank %d of %d could not join the job at %s:%d within %v (are all %d processes started, with this MASTER_ADDR and MASTER_PORT, and is the port free?): %w",
			cfg.Rank, cfg.WorldSize, cfg.MasterAddr, cfg.MasterPort, cfg.Timeout, cfg.WorldSize, err)
	}
	return &DataParallel{cfg: cfg, group: g}, nil
}

// Config returns the job's configuration, defaults filled in.
func (d *DataParallel) Config() Config { return d.cfg }

// Rank is this process's number, from 0.
func (d *DataParallel) Rank() int { return d.cfg.Rank }

// WorldSize is the number of processes.
func (d *DataParallel) WorldSize() int { return d.cfg.WorldSize }

// IsChief reports whether this is rank 0, the process that prints
// progress and writes checkpoints.
func (d *DataParallel) IsChief() bool { return d.cfg.Rank == 0 }

// Close leaves the job.
func (d *DataParallel) Close() error { return d.group.Close() }

// AllReduceFloat32 sums data in place across all processes.
func (d *DataParallel) AllReduceFloat32(data []float32) error {
	return d.failed("allreduce", d.group.AllReduceFloat32(data))
}

// AllReduceFloat64 sums data in place across all processes.
func (d *DataParallel) AllReduceFloat64(data []float64) error {
	return d.failed("allreduce", d.group.AllReduceFloat64(data))
}

// AllReduceTensor sums a libtorch tensor in place across all processes
// (the libtorch engine's path, without a copy to the host).
func (d *DataParallel) AllReduceTensor(tensor unsafe.Pointer) error {
	tg, ok := d.group.(interface{ AllReduceTensor(unsafe.Pointer) error })
	if !ok {
		return fmt.Errorf("the distributed transport (%T) cannot sum libtorch tensors", d.group)
	}
	return d.failed("allreduce", tg.AllReduceTensor(tensor))
}

// BroadcastFloat32 copies root's data to every process.
func (d *DataParallel) BroadcastFloat32(data []float32, root int) error {
	return d.failed("broadcast", d.group.BroadcastFloat32(data, root))
}

// BroadcastFloat64 copies root's data to every process.
func (d *DataParallel) BroadcastFloat64(data []float64, root int) error {
	return d.failed("broadcast", d.group.BroadcastFloat64(data, root))
}

// Barrier returns when every process has called it.
func (d *DataParallel) Barrier() error { return d.failed("barrier", d.group.Barrier()) }

var _ backend.Collective = (*DataParallel)(nil)

// failed turns a collective's failure into an error that names the
// processes that are gone: every survivor writes an "alive" key into the
// store and waits a little for the others' keys; the ranks whose keys do
// not appear died or hang. When rank 0 (which hosts the store) is gone,
// the store fails too, which names it.
func (d *DataParallel) failed(op string, err error) error {
	if err == nil {
		return nil
	}
	lost, diagErr := d.lostRanks()
	switch {
	case diagErr != nil && d.cfg.Rank != 0:
		return fmt.Errorf("%s failed on rank %d: lost rank 0 (it hosts the job's store and no longer answers: it died or hangs): %w", op, d.cfg.Rank, err)
	case len(lost) > 0:
		names := make([]string, len(lost))
		for i, r := range lost {
			names[i] = strconv.Itoa(r)
		}
		return fmt.Errorf("%s failed on rank %d: lost rank %s of %d (died or hangs; timeout %v): %w", op, d.cfg.Rank, joinComma(names), d.cfg.WorldSize, d.cfg.Timeout, err)
	}
	return fmt.Errorf("%s failed on rank %d of %d: %w", op, d.cfg.Rank, d.cfg.WorldSize, err)
}

// lostRanks is failed's check-in through the store.
func (d *DataParallel) lostRanks() ([]int, error) {
	const prefix = "kerasgo/alive-after-failure/"
	if err := d.group.SetKey(prefix+strconv.Itoa(d.cfg.Rank), "1"); err != nil {
		return nil, err
	}
	keys := make([]string, d.cfg.WorldSize)
	for r := range keys {
		keys[r] = prefix + strconv.Itoa(r)
	}
	window := min(d.cfg.Timeout/2, 5*time.Second)
	deadline := time.Now().Add(window)
	var lost []int
	for {
		found, err := d.group.HasKeys(keys)
		if err != nil {
			return nil, err
		}
		lost = lost[:0]
		for r, ok := range found {
			if !ok {
				lost = append(lost, r)
			}
		}
		if len(lost) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d.cfg.Rank == 0 {
		// The store lives in this process: keep it up a little longer
		// so that the other survivors finish their own check-in.
		time.Sleep(time.Until(deadline))
	}
	sort.Ints(lost)
	return lost, nil
}

func joinComma(s []string) string {
	switch len(s) {
	case 1:
		return s[0]
	case 2:
		return s[0] + " and " + s[1]
	}
	out := ""
	for i, x := range s {
		if i == len(s)-1 {
			out += "and " + x
		} else {
			out += x + ", "
		}
	}
	return out
}
