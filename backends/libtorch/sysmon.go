//go:build libtorch

package libtorch

import (
	"fmt"
	"os"
	"sync"

	"github.com/kerasgo/kerasgo/internal/sysmon"
)

// SysmonEnv names the environment variable that decides what the CPU
// engine does to Go's runtime monitor thread (sysmon) when it opens:
// unset or "keep", nothing (the default: a library changes nothing
// process-wide unless asked); "batch", put it under SCHED_BATCH, as
// BatchSysmon does.
const SysmonEnv = "KERASGO_SYSMON"

// prepareSysmon does what $KERASGO_SYSMON asks when a CPU engine opens;
// a bad value is an error that says which values there are.
func prepareSysmon() error {
	switch v := os.Getenv(SysmonEnv); v {
	case "", "keep":
		return nil
	case "batch":
		batchSysmon()
		return nil
	default:
		return fmt.Errorf("%s=%q: use keep (the default: leave Go's sysmon thread as it is) or batch (put it under SCHED_BATCH, so that it does not preempt libtorch's spinning OpenMP threads: a few %% faster on small recurrent models)", SysmonEnv, v)
	}
}

// BatchSysmon puts Go's runtime monitor thread (sysmon) under Linux's
// SCHED_BATCH for the rest of the process, once, and says which thread it
// changed: what $KERASGO_SYSMON=batch asks the first CPU engine to do.
// It changes the whole process's scheduling, so the engine does it only
// when asked.
//
// Why: libtorch's OpenMP threads spin on every core between parallel
// regions, and each time sysmon wakes (up to every 20 µs after it retakes
// a P from a long cgo call) it preempts one of them under the default
// policy; the team's next barrier then waits for the thread that lost its
// core. That was 4-6% of an LSTM(64) training step on PyPI's libtorch;
// under SCHED_BATCH sysmon waits for a time slice to end or a core to be
// idle (docs/benchmarks.md, "Go's sysmon"). Its share of the CPU is
// unchanged, and sysmon.Restore could undo it, privileged or not. Finding
// the thread samples /proc for up to a second. Elsewhere than Linux, or
// where /proc is hidden, it changes nothing and returns the error.
func BatchSysmon() (thread int, err error) {
	r := batchSysmon()
	return r.tid, r.err
}

type sysmonResult struct {
	tid int
	err error
}

var batchSysmon = sync.OnceValue(func() sysmonResult {
	tid, err := sysmon.Batch()
	if err != nil {
		return sysmonResult{err: fmt.Errorf("the runtime's sysmon thread was left as it is: %w", err)}
	}
	return sysmonResult{tid: tid}
})
