package sysmon

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestThreadIsSysmon checks that the thread found behaves as sysmon does:
// while a goroutine computes, sysmon wakes at least every 10 ms to see
// whether it should be preempted, so it sleeps (a voluntary switch) about
// 30 times or more in 300 ms (59-69 times in 200 ms here); the process's
// other threads need not (another thread, chosen on purpose, slept 6).
func TestThreadIsSysmon(t *testing.T) {
	tid, err := Thread()
	if err != nil {
		t.Fatal(err)
	}
	if tid == os.Getpid() {
		t.Fatalf("Thread returned the main thread %d", tid)
	}
	n, err := SleepsDuring(tid, func() {
		for stop := time.Now().Add(300 * time.Millisecond); time.Now().Before(stop); {
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("thread %d slept %d times in 300 ms of a busy goroutine: sysmon sleeps at least 30 times", tid, n)
	}
}

func TestBatchAndRestore(t *testing.T) {
	tid, err := Batch()
	if err != nil {
		t.Fatal(err)
	}
	policy, reset, err := Policy(tid)
	if err != nil {
		t.Fatal(err)
	}
	if policy != unix.SCHED_BATCH || !reset {
		t.Errorf("after Batch thread %d runs under %s, reset on fork %v: want SCHED_BATCH, true", tid, PolicyName(policy), reset)
	}
	if _, err := Restore(); err != nil {
		t.Fatal(err)
	}
	if policy, _, _ = Policy(tid); policy != unix.SCHED_NORMAL {
		t.Errorf("after Restore thread %d runs under %s, want SCHED_OTHER", tid, PolicyName(policy))
	}
}

// TestRestoreUnprivileged runs TestBatchAndRestore again as user 65534
// (nobody) with no capabilities, to check the promise that any process
// can undo Batch: the kernel lets an unprivileged thread leave SCHED_BATCH
// for SCHED_OTHER at the same nice value (it would not leave SCHED_IDLE).
func TestRestoreUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("this run is unprivileged already, so TestBatchAndRestore checks it; as root this test drops root with setpriv")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv to drop root: sudo apt-get install util-linux")
	}
	dir, err := os.MkdirTemp("", "sysmon-test")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "sysmon.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
		bin, "-test.run=^TestBatchAndRestore$", "-test.v", "-test.count=1").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestBatchAndRestore") {
		t.Fatalf("TestBatchAndRestore as nobody without capabilities: %v\n%s", err, out)
	}
}

func TestPolicyName(t *testing.T) {
	for policy, want := range map[int]string{unix.SCHED_NORMAL: "SCHED_OTHER", unix.SCHED_BATCH: "SCHED_BATCH", 99: "policy 99"} {
		if got := PolicyName(policy); got != want {
			t.Errorf("PolicyName(%d) = %q, want %q", policy, got, want)
		}
	}
}
