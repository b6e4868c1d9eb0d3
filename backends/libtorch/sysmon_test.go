//go:build libtorch

package libtorch_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/internal/sysmon"
	"github.com/kerasgo/kerasgo/keras/backend"
	"golang.org/x/sys/unix"
)

// Opening a CPU engine leaves Go's sysmon thread as it is unless asked
// (issue 39: a library changes nothing process-wide by default); with
// KERASGO_SYSMON=batch it goes under SCHED_BATCH on Linux, so that it does
// not preempt libtorch's spinning OpenMP threads. The test is one
// function, as the change lasts for the process.
func TestCPUEngineBatchesSysmonWhenAsked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SCHED_BATCH is Linux's")
	}
	tid, err := sysmon.Thread()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(libtorch.SysmonEnv, "")
	if _, err := backend.Open("libtorch:cpu"); err != nil {
		t.Fatal(err)
	}
	if policy, _, err := sysmon.Policy(tid); err != nil || policy == unix.SCHED_BATCH {
		t.Fatalf("sysmon (thread %d) runs under %s (%v) after the engine opened without KERASGO_SYSMON: want it unchanged", tid, sysmon.PolicyName(policy), err)
	}
	t.Setenv(libtorch.SysmonEnv, "batch")
	if _, err := backend.Open("libtorch:cpu"); err != nil {
		t.Fatal(err)
	}
	if got, err := libtorch.BatchSysmon(); err != nil || got != tid {
		t.Fatalf("BatchSysmon = %d, %v; want thread %d", got, err, tid)
	}
	if policy, _, err := sysmon.Policy(tid); err != nil || policy != unix.SCHED_BATCH {
		t.Fatalf("sysmon (thread %d) runs under %s (%v), want SCHED_BATCH", tid, sysmon.PolicyName(policy), err)
	}
	// libtorch's libraries (and OpenBLAS's threads, beside Debian's) are
	// loaded before Go's runtime starts: the thread must still be sysmon,
	// which sleeps at least every 10 ms while a goroutine computes (100
	// times a second; at least 10 here, as under SCHED_BATCH on a loaded
	// machine it may wait some ms for a core after each sleep).
	n, err := sysmon.SleepsDuring(tid, func() {
		for stop := time.Now().Add(time.Second); time.Now().Before(stop); {
		}
	})
	if err != nil || n < 10 {
		t.Fatalf("thread %d slept %d times (%v) in 1 s of a busy goroutine: sysmon sleeps about 100 times", tid, n, err)
	}
}

func TestSysmonEnv(t *testing.T) {
	for _, v := range []string{"keep", ""} {
		t.Setenv(libtorch.SysmonEnv, v)
		if err := libtorch.PrepareSysmon(); err != nil {
			t.Errorf("%s=%q: %v", libtorch.SysmonEnv, v, err)
		}
	}
	t.Setenv(libtorch.SysmonEnv, "idle")
	err := libtorch.PrepareSysmon()
	if err == nil || !strings.Contains(err.Error(), "use keep") || !strings.Contains(err.Error(), "batch") {
		t.Fatalf("%s=idle: got %v, want an error naming batch and keep", libtorch.SysmonEnv, err)
	}
	if _, err := backend.Open("libtorch:cpu"); err == nil {
		t.Fatalf("libtorch:cpu opened with %s=idle", libtorch.SysmonEnv)
	}
}
