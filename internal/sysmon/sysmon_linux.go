package sysmon

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the thread ID of the Go runtime's monitor thread: the
// first thread the process started after its main thread, if it is seen
// sleeping in nanosleep within about 20 ms (sysmon's loop sleeps there;
// each of this function's reads, a system call, also wakes it from a deep
// sleep). It returns an error naming the thread otherwise.
func Thread() (int, error) {
	pid := os.Getpid()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, fmt.Errorf("sysmon: listing the process's threads: %w", err)
	}
	pidMax := readPIDMax()
	first, firstAge := 0, -1
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil || tid == pid {
			continue
		}
		// Thread IDs are handed out in increasing order, wrapping at
		// pid_max: the distance from the main thread's ID orders the
		// threads by when they started.
		age := ((tid-pid)%pidMax + pidMax) % pidMax
		if firstAge < 0 || age < firstAge {
			first, firstAge = tid, age
		}
	}
	if first == 0 {
		return 0, errors.New("sysmon: the process has no thread besides its main one")
	}
	want := strconv.Itoa(syscall.SYS_NANOSLEEP) + " "
	path := fmt.Sprintf("/proc/self/task/%d/syscall", first)
	var last string
	for deadline := time.Now().Add(20 * time.Millisecond); time.Now().Before(deadline); {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, fmt.Errorf("sysmon: reading what thread %d is doing: %w", first, err)
		}
		last = string(b)
		if strings.HasPrefix(last, want) {
			return first, nil
		}
	}
	return 0, fmt.Errorf("sysmon: thread %d, the first the process started after its main thread, was never seen in nanosleep as Go's sysmon sleeps (last seen: %q): left as it is", first, strings.TrimSpace(last))
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
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return 0, fmt.Errorf("sysmon: reading thread %d's scheduling: %w", tid, err)
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
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return 0, false, fmt.Errorf("sysmon: reading thread %d's scheduling: %w", tid, err)
	}
	return int(attr.Policy), attr.Flags&unix.SCHED_FLAG_RESET_ON_FORK != 0, nil
}

// Sleeps returns how many times thread tid has gone to sleep (its
// voluntary context switches): sysmon's count grows at least every 10 ms
// while a goroutine runs, which the tests use to tell it from other
// threads.
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
