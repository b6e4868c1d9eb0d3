// Package sysmon finds the Go runtime's monitor thread (sysmon) and lowers
// how eagerly the kernel lets it take a core: SCHED_BATCH, under which a
// thread that wakes up waits for the running thread's time slice to end
// (or for an idle core) instead of preempting it at once.
//
// Why kerasgo needs it: sysmon wakes every 20 µs to 10 ms while goroutines
// run, and after each retake of a P from a long cgo call it polls at 20 µs
// again. libtorch on PyPI runs its ops on an OpenMP team that spins on
// every core between parallel regions; under the default policy each of
// sysmon's wake-ups preempts one of those threads, and the team's next
// barrier waits for it. On an LSTM(64) training step that was kerasgo's
// 4-6% over PyTorch 2 eager on the same libtorch (docs/benchmarks.md,
// "Go's sysmon"). SCHED_BATCH keeps sysmon's share of the CPU (its nice
// value is unchanged), so it is not starved as under SCHED_IDLE; an
// unprivileged process may switch a thread back to SCHED_OTHER at the same
// nice value, which Restore does.
//
// The runtime has no API that names sysmon's thread. Thread takes, of the
// threads in the order they started, the first seen sleeping in nanosleep
// and waking again within 30 ms (up to 1 s on a loaded machine), as
// sysmon's loop does between rounds, and keeps the answer (the
// runtime starts sysmon first, in runtime.main, before any package's init;
// threads that C libraries start before it, such as OpenBLAS's, wait in
// futex or sched_yield). Linux only; elsewhere the functions return
// errors.ErrUnsupported.
//
// The functions are safe to call from many goroutines; they change the
// scheduling of a thread of the whole process, not of the caller.
package sysmon
