//go:build libtorch

package libtorch

import (
	"fmt"
	"os"
	"sync"

	"github.com/kerasgo/kerasgo/internal/sysmon"
)

// SysmonEnv names the environment variable that decides what the CPU
// engine does to Go's runtime monitor thread (sysmon): unset or "batch",
// put it under SCHED_BATCH; "keep", leave it as it is.
const SysmonEnv = "KERASGO_SYSMON"

// prepareSysmon puts Go's sysmon thread under SCHED_BATCH, once per
// process, when a CPU engine opens and $KERASGO_SYSMON is unset or
// "batch"; a bad value is an error that says which values there are.
//
// Why: libtorch's OpenMP threads spin on every core between parallel
// regions, and each time sysmon wakes (up to every 20 µs after it retakes
// a P from a long cgo call) it preempts one of them under the default
// policy; the team's next barrier then waits for the thread that lost its
// core. That was 4-6% of an LSTM(64) training step on PyPI's libtorch;
// under SCHED_BATCH sysmon waits for a time slice to end or a core to be
// idle (docs/benchmarks.md, "Go's sysmon"). Its share of the CPU is
// unchanged, and sysmon.Restore could undo it, privileged or not.
func prepareSysmon() error {
	switch v := os.Getenv(SysmonEnv); v {
	case "", "batch":
		batchSysmon()
		return nil
	case "keep":
		return nil
	default:
		return fmt.Errorf("%s=%q: use batch (the default: Go's sysmon thread under SCHED_BATCH, so that it does not preempt libtorch's spinning OpenMP threads) or keep (leave it as it is)", SysmonEnv, v)
	}
}

// batchSysmon does it once and says what it did, for the tests. Failing to
// find or change sysmon (not Linux, a sandbox that hides /proc) only costs
// speed, so it is not an error for the engine.
var batchSysmon = sync.OnceValue(func() string {
	tid, err := sysmon.Batch()
	if err != nil {
		return "left as it is: " + err.Error()
	}
	return fmt.Sprintf("thread %d under SCHED_BATCH", tid)
})
