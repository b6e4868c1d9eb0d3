package distribution

import (
	"fmt"
	"slices"
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
	// stopBeat stops the heartbeat (see failed); beatDone closes when it
	// has stopped.
	stopBeat, beatDone chan struct{}
	failure            error // the first collective's failure, diagnosed
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
	joinErr := func(err error) error {
		return fmt.Errorf("rank %d of %d could not join the job at %s:%d (timeout %v): %w", cfg.Rank, cfg.WorldSize, cfg.MasterAddr, cfg.MasterPort, cfg.Timeout, err)
	}
	self, err := cfg.address()
	if err != nil {
		return nil, joinErr(err)
	}
	o := GroupOptions{Host: cfg.MasterAddr, Port: cfg.MasterPort, Rank: cfg.Rank, WorldSize: cfg.WorldSize, Timeout: cfg.Timeout, Interface: cfg.Interface}
	if o.Interface == "" {
		o.Address = self.IP.String()
	}
	if cfg.AgentStore {
		o.AgentStorePrefix = fmt.Sprintf("/worker/attempt_%d", cfg.Attempt) // torch.distributed's prefix
	}
	g, err := transport.Open(o)
	if err != nil {
		return nil, joinErr(err)
	}
	d := &DataParallel{cfg: cfg, group: g, stopBeat: make(chan struct{}), beatDone: make(chan struct{})}
	go d.beat(d.stopBeat, d.beatDone)
	return d, nil
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

// Close leaves the job. Closing twice is allowed.
func (d *DataParallel) Close() error {
	select {
	case <-d.stopBeat:
	default:
		close(d.stopBeat)
	}
	<-d.beatDone
	return d.group.Close()
}

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

// heartbeat is how often each process bumps its counter in the store, so
// that after a failure the survivors can tell the dead or frozen processes
// (whose counters stopped) from the live ones.
const heartbeat = 250 * time.Millisecond

const (
	heartbeatKey = "kerasgo/heartbeat/"   // + rank: a counter
	sawFailure   = "kerasgo/saw-failure/" // + rank: set by a survivor
)

// beat bumps this process's heartbeat counter until stop is closed.
func (d *DataParallel) beat(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	key := heartbeatKey + strconv.Itoa(d.cfg.Rank)
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		if _, err := d.group.Add(key, 1); err != nil {
			return // the store is gone: the job is failing
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// failed turns a collective's failure into an error that names the
// processes that are gone. A survivor marks itself in the store, then
// compares every process's heartbeat counter over a few beats: a process
// whose counter stopped and that did not mark itself died or is frozen.
// When rank 0 (which hosts the store) is gone, the store fails too, which
// names it.
func (d *DataParallel) failed(op string, err error) error {
	if err == nil {
		return nil
	}
	if d.failure != nil { // diagnosed already
		return fmt.Errorf("%s on rank %d: %w", op, d.cfg.Rank, d.failure)
	}
	d.failure = d.diagnose(op, err)
	return d.failure
}

// Failure returns the error of the first collective that failed (naming
// the processes that were lost), or nil. Once one has failed, the job
// cannot go on: close it and start the job again.
func (d *DataParallel) Failure() error { return d.failure }

func (d *DataParallel) diagnose(op string, err error) error {
	lost, diagErr := d.lostRanks()
	switch {
	case diagErr != nil && d.cfg.Rank != 0:
		return fmt.Errorf("%s failed on rank %d: lost rank 0 (it hosts the job's store and no longer answers: it died or is frozen, or this machine lost its connection to it): %w", op, d.cfg.Rank, err)
	case len(lost) == 1:
		return fmt.Errorf("%s failed on rank %d: lost rank %d of %d (it died or is frozen, or its machine cannot be reached): %w", op, d.cfg.Rank, lost[0], d.cfg.WorldSize, err)
	case len(lost) > 1:
		names := make([]string, len(lost))
		for i, r := range lost {
			names[i] = strconv.Itoa(r)
		}
		return fmt.Errorf("%s failed on rank %d: lost ranks %s of %d (they died or are frozen, or their machines cannot be reached): %w", op, d.cfg.Rank, joinComma(names), d.cfg.WorldSize, err)
	}
	return fmt.Errorf("%s failed on rank %d of %d: %w", op, d.cfg.Rank, d.cfg.WorldSize, err)
}

// lostRanks is failed's check through the store.
func (d *DataParallel) lostRanks() ([]int, error) {
	if err := d.group.SetKey(sawFailure+strconv.Itoa(d.cfg.Rank), "1"); err != nil {
		return nil, err
	}
	counters := func() ([]int64, error) {
		c := make([]int64, d.cfg.WorldSize)
		for r := range c {
			v, err := d.group.Add(heartbeatKey+strconv.Itoa(r), 0)
			if err != nil {
				return nil, err
			}
			c[r] = v
		}
		return c, nil
	}
	saw := make([]string, d.cfg.WorldSize)
	for r := range saw {
		saw[r] = sawFailure + strconv.Itoa(r)
	}
	before, err := counters()
	if err != nil {
		return nil, err
	}
	time.Sleep(6 * heartbeat)
	after, err := counters()
	if err != nil {
		return nil, err
	}
	marked, err := d.group.HasKeys(saw)
	if err != nil {
		return nil, err
	}
	var lost []int
	for r := range after {
		if r != d.cfg.Rank && after[r] == before[r] && !marked[r] {
			lost = append(lost, r)
		}
	}
	if d.cfg.Rank == 0 {
		// The store lives in this process: keep it up until the other
		// survivors have looked too (they mark themselves first).
		deadline := time.Now().Add(20 * heartbeat)
		for time.Now().Before(deadline) {
			marked, err := d.group.HasKeys(saw)
			if err != nil {
				break
			}
			all := true
			for r, ok := range marked {
				all = all && (ok || slices.Contains(lost, r))
			}
			if all {
				break
			}
			time.Sleep(heartbeat / 5)
		}
		time.Sleep(8 * heartbeat) // their last reads
	}
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
