package sysmon

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the thread ID of the Go runtime's monitor thread: of the
// process's threads, in the order they started, the first that is seen
// sleeping in nanosleep and has slept again by the end of a window of 30
// ms, extended 30 ms at a time up to 1 s where none has (a loaded machine
// may leave sysmon waiting for a core). sysmon's loop sleeps in nanosleep,
// at most 10 ms at a time while a goroutine runs (this one does), and each
// of this function's reads, a system call, also wakes it from a deep
// sleep; threads that C libraries start before Go's runtime (OpenBLAS's,
// say) wait in futex or sched_yield instead. sysmon lives as long as the
// process, so the answer is kept and later calls return it at once. It
// returns an error saying what it saw otherwise.
func Thread() (int, error) {
	found.Lock()
	defer found.Unlock()
	if found.tid != 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", found.tid)); err == nil {
			return found.tid, nil
		}
	}
	tid, err := findThread()
	found.tid = tid
	return tid, err
}

// found keeps the thread Thread found.
var found struct {
	sync.Mutex
	tid int
}

// findThread does Thread's search, without the kept answer.
func findThread() (int, error) {
	tids, err := threadsInOrder()
	if err != nil {
		return 0, err
	}
	if len(tids) == 0 {
		return 0, errors.New("sysmon: the process has no thread besides its main one")
	}
	sleeps := make([]int, len(tids)) // -1: the thread is gone
	for i, tid := range tids {
		if sleeps[i], err = Sleeps(tid); err != nil {
			sleeps[i] = -1
		}
	}
	want := strconv.Itoa(syscall.SYS_NANOSLEEP) + " "
	inNanosleep := make([]bool, len(tids))
	start := time.Now()
	for window := 30 * time.Millisecond; window <= time.Second; window += 30 * time.Millisecond {
		for deadline := start.Add(window); time.Now().Before(deadline); {
			for i, tid := range tids {
				if sleeps[i] < 0 || inNanosleep[i] {
					continue
				}
				b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", tid))
				if err != nil {
					sleeps[i] = -1
					continue
				}
				inNanosleep[i] = strings.HasPrefix(string(b), want)
			}
		}
		// After a whole window, not at the first thread seen: the
		// runtime's other threads also sleep in nanosleep now and then
		// (3 µs while stealing work), but start after sysmon.
		for i, tid := range tids {
			if !inNanosleep[i] || sleeps[i] < 0 {
				continue
			}
			if n, err := Sleeps(tid); err == nil && n > sleeps[i] {
				return tid, nil
			}
		}
	}
	return 0, fmt.Errorf("sysmon: none of the process's %d threads besides its main one was seen sleeping in nanosleep and waking within 1 s, as Go's sysmon does: left as it is", len(tids))
}

// threadsInOrder lists the process's threads but its main one, in the
// order they started: thread IDs are handed out in increasing order,
// wrapping at pid_max, so the distance from the main thread's ID orders
// them.
func threadsInOrder() ([]int, error) {
	pid := os.Getpid()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("sysmon: listing the process's threads: %w", err)
	}
	pidMax := readPIDMax()
	age := func(tid int) int { return ((tid-pid)%pidMax + pidMax) % pidMax }
	var tids []int
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil && tid != pid {
			tids = append(tids, tid)
		}
	}
	slices.SortFunc(tids, func(a, b int) int { return age(a) - age(b) })
	return tids, nil
}

// readPIDMax returns the kernel's pid_max, or Linux's largest default.
func readPIDMax() int {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			return n
		}
	}
	return 1 << 22
}

// Batch puts the Go runtime's monitor thread under SCHED_BATCH at its
// present nice value, with SCHED_RESET_ON_FORK so that the threads it
// starts (Go starts some from sysmon) get the default policy. It returns
// the thread's ID.
func Batch() (int, error) {
	return setPolicy(unix.SCHED_BATCH, unix.SCHED_FLAG_RESET_ON_FORK)
}

// Restore puts the Go runtime's monitor thread back under SCHED_OTHER,
// the default, at its present nice value, and returns the thread's ID.
// SCHED_RESET_ON_FORK stays set where Batch set it: only a privileged
// thread may clear it, and under SCHED_OTHER it changes nothing.
func Restore() (int, error) {
	return setPolicy(unix.SCHED_NORMAL, 0)
}

// setPolicy sets sysmon's policy and adds flags to its flags.
func setPolicy(policy uint32, flags uint64) (int, error) {
	tid, err := Thread()
	if err != nil {
		return 0, err
	}
	attr, err := schedAttr(tid)
	if err != nil {
		return 0, err
	}
	if attr.Policy != unix.SCHED_NORMAL && attr.Policy != unix.SCHED_BATCH {
		return 0, fmt.Errorf("sysmon: thread %d runs under %s, which kerasgo leaves as it is", tid, PolicyName(int(attr.Policy)))
	}
	attr.Policy, attr.Flags = policy, attr.Flags&unix.SCHED_FLAG_RESET_ON_FORK|flags
	if err := unix.SchedSetAttr(tid, attr, 0); err != nil {
		return 0, fmt.Errorf("sysmon: setting thread %d's scheduling to %s: %w", tid, PolicyName(int(policy)), err)
	}
	return tid, nil
}

// Policy returns thread tid's scheduling policy (unix.SCHED_NORMAL,
// unix.SCHED_BATCH, ...) and whether SCHED_RESET_ON_FORK is set.
func Policy(tid int) (policy int, resetOnFork bool, err error) {
	attr, err := schedAttr(tid)
	if err != nil {
		return 0, false, err
	}
	return int(attr.Policy), attr.Flags&unix.SCHED_FLAG_RESET_ON_FORK != 0, nil
}

// schedAttr reads thread tid's scheduling attributes.
func schedAttr(tid int) (*unix.SchedAttr, error) {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return nil, fmt.Errorf("sysmon: reading thread %d's scheduling: %w", tid, err)
	}
	return attr, nil
}

// Sleeps returns how many times thread tid has gone to sleep (its
// voluntary context switches): sysmon's count grows at least every 10 ms
// while a goroutine runs, which Thread and the tests use to tell it from
// other threads.
func Sleeps(tid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
	if err != nil {
		return 0, fmt.Errorf("sysmon: reading thread %d's status: %w", tid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("sysmon: thread %d's status has no voluntary_ctxt_switches", tid)
}

// SleepsDuring runs f and returns how many times thread tid went to sleep
// meanwhile (see Sleeps).
func SleepsDuring(tid int, f func()) (int, error) {
	before, err := Sleeps(tid)
	if err != nil {
		return 0, err
	}
	f()
	after, err := Sleeps(tid)
	return after - before, err
}

// PolicyName names a scheduling policy as sched(7) does.
func PolicyName(policy int) string {
	switch policy {
	case unix.SCHED_NORMAL:
		return "SCHED_OTHER"
	case unix.SCHED_BATCH:
		return "SCHED_BATCH"
	case unix.SCHED_IDLE:
		return "SCHED_IDLE"
	case unix.SCHED_FIFO:
		return "SCHED_FIFO"
	case unix.SCHED_RR:
		return "SCHED_RR"
	case unix.SCHED_DEADLINE:
		return "SCHED_DEADLINE"
	}
	return "policy " + strconv.Itoa(policy)
}
