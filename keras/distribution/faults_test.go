//go:build libtorch && cgo

package distribution_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
)

// faultTimeout is the job's c10d timeout in TestLostRankIsNamed.
const faultTimeout = 10 * time.Second

func init() {
	workers["killed-mid-epoch"] = killedMidEpochWorker
	workers["frozen-mid-epoch"] = frozenMidEpochWorker
	workers["mismatched"] = mismatchedWorker
	workers["wrong-port"] = wrongPortWorker
}

// wrongPortWorker joins the job; rank 1 looks for the store on the wrong
// port.
func wrongPortWorker() error {
	cfg := distribution.Config{Timeout: joinTimeout}
	if os.Getenv("RANK") == "1" {
		port, _ := strconv.Atoi(os.Getenv("MASTER_PORT"))
		cfg.MasterPort = port + 1
	}
	dp, err := distribution.NewDataParallel(cfg)
	if err != nil {
		return err
	}
	return dp.Close()
}

// joinTimeout is the job's c10d timeout in TestWrongPortFailsWithinTimeout.
const joinTimeout = 6 * time.Second

// A process given the wrong MASTER_PORT: both processes fail within the
// timeout (plus a margin for this shared machine), rank 0 saying that
// processes are missing. Rank 0 took twice the timeout before (the store's own
// wait gave up silently, then the process group waited again).
func TestWrongPortFailsWithinTimeout(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	for _, r := range disttest.Run(t, "wrong-port", 2, 2*time.Minute, "TEST_ENGINE=gorgonia") {
		if r.Err == nil || !strings.Contains(r.Output, "could not join the job") {
			t.Errorf("rank %d: %v, want it to fail to join:\n%s", r.Rank, r.Err, r.Output)
		}
		if r.Rank == 0 && !strings.Contains(r.Output, "not every one of the 2 processes reached the job's store") {
			t.Errorf("rank 0 does not say that processes are missing:\n%s", r.Output)
		}
		if r.Took > joinTimeout+4*time.Second {
			t.Errorf("rank %d failed after %v, timeout %v", r.Rank, r.Took, joinTimeout)
		}
		t.Logf("rank %d failed after %v (timeout %v): %s", r.Rank, r.Took.Round(10*time.Millisecond), joinTimeout, lastLine(r.Output))
	}
}

// mismatchedWorker: rank 1 differs from rank 0 as $TEST_MISMATCH says:
// another model (a BatchNormalization more) or fewer samples.
func mismatchedWorker() error {
	dp, err := distribution.NewDataParallel(distribution.Config{Timeout: faultTimeout})
	if err != nil {
		return err
	}
	defer dp.Close()
	m, err := mlp(dp.Rank() == 1 && os.Getenv("TEST_MISMATCH") == "model")
	if err != nil {
		return err
	}
	if err := m.Compile(compileOpts(os.Getenv("TEST_ENGINE"), dp)); err != nil {
		return err
	}
	n := 1000
	if dp.Rank() == 1 && os.Getenv("TEST_MISMATCH") == "samples" {
		n = 900
	}
	x, y := mlpData(n)
	_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: perRank, Verbose: keras.Silent})
	return err
}

// Ranks with different models, or different numbers of samples, fail
// together with one message before any step: before, the first ended in
// a Gloo abort on one rank and "lost rank" on the other, the second
// trained a wrong model with no error.
func TestMismatchedRanksFailTogether(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	for _, c := range []struct{ mismatch, says string }{
		{"model", "1 of the 2 processes have a model other than rank 0's"},
		{"samples", "1 processes have a number of samples other than rank 0's 1000"},
	} {
		t.Run(c.mismatch, func(t *testing.T) {
			for _, r := range disttest.Run(t, "mismatched", 2, 2*time.Minute, "TEST_ENGINE=gorgonia", "TEST_MISMATCH="+c.mismatch) {
				if r.Err == nil || !strings.Contains(r.Output, c.says) || strings.Contains(r.Output, "gloo") {
					t.Errorf("rank %d: %v, want it to fail saying %q:\n%s", r.Rank, r.Err, c.says, r.Output)
				}
			}
		})
	}
}

// frozenTimeout is the job's c10d timeout in TestFrozenRankIsNamed.
const frozenTimeout = 4 * time.Second

// frozenMidEpochWorker trains for long; rank 2 freezes itself (SIGSTOP)
// at batch 20, after arranging to be killed 12 s later.
func frozenMidEpochWorker() error {
	dp, m, err := joinMLP(frozenTimeout, false)
	if err != nil {
		return err
	}
	defer dp.Close()
	dir := os.Getenv("TEST_OUT")
	freeze := &callbacks.Lambda{TrainBatchEnd: func(batch int, _ callbacks.Logs) {
		if dp.Rank() == 2 && batch == 20 {
			pid := strconv.Itoa(os.Getpid())
			exec.Command("sh", "-c", "sleep 12; kill -9 "+pid).Start()
			os.WriteFile(filepath.Join(dir, "frozen-at"), []byte(strconv.FormatInt(time.Now().UnixMilli(), 10)), 0o644)
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		}
	}}
	x, y := mlpData(100000 * dp.WorldSize())
	_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: perRank, Verbose: keras.Silent, Callbacks: []callbacks.Callback{freeze}})
	return err
}

// killedMidEpochWorker trains for long; rank 0 checkpoints every 5
// batches, and rank 2 kills itself (SIGKILL, no goodbye) at batch 20.
func killedMidEpochWorker() error {
	dp, m, err := joinMLP(faultTimeout, false)
	if err != nil {
		return err
	}
	defer dp.Close()
	dir := os.Getenv("TEST_OUT")
	ck, err := callbacks.NewModelCheckpoint(callbacks.ModelCheckpointOptions{Path: filepath.Join(dir, "checkpoint.keras"), SaveFreq: 5})
	if err != nil {
		return err
	}
	kill := &callbacks.Lambda{TrainBatchEnd: func(batch int, _ callbacks.Logs) {
		if dp.Rank() == 2 && batch == 20 {
			os.WriteFile(filepath.Join(dir, "killed-at"), []byte(strconv.FormatInt(time.Now().UnixMilli(), 10)), 0o644)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}}
	x, y := mlpData(100000 * dp.WorldSize())
	_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: perRank, Verbose: keras.Silent, Callbacks: []callbacks.Callback{ck, kill}})
	if err == nil {
		return nil
	}
	return err
}

// TestLostRankIsNamed kills one of 4 workers mid-epoch: the other three
// fail within the timeout with an error naming rank 2, and rank 0's
// checkpoint still loads.
func TestLostRankIsNamed(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	dir := t.TempDir()
	start := time.Now()
	res := disttest.Run(t, "killed-mid-epoch", 4, 2*time.Minute, "TEST_ENGINE=gorgonia", "TEST_OUT="+dir)
	data, err := os.ReadFile(filepath.Join(dir, "killed-at"))
	if err != nil {
		t.Fatalf("rank 2 did not reach batch 20: %v\n%s", err, res[2].Output)
	}
	ms, _ := strconv.ParseInt(string(data), 10, 64)
	killedAt := time.UnixMilli(ms)
	for _, r := range res {
		if r.Rank == 2 {
			continue
		}
		if r.Err == nil {
			t.Errorf("rank %d finished without error after rank 2 died:\n%s", r.Rank, r.Output)
			continue
		}
		if !strings.Contains(r.Output, "lost rank 2 of 4") {
			t.Errorf("rank %d's error does not name rank 2:\n%s", r.Rank, r.Output)
		}
		if after := start.Add(r.Took).Sub(killedAt); after > faultTimeout {
			t.Errorf("rank %d failed %v after rank 2 died, more than the %v timeout", r.Rank, after, faultTimeout)
		} else {
			t.Logf("rank %d failed %v after rank 2 died: %s", r.Rank, after.Round(10*time.Millisecond), lastLine(r.Output))
		}
	}
	if _, err := keras.LoadModel(filepath.Join(dir, "checkpoint.keras")); err != nil {
		t.Errorf("rank 0's last checkpoint does not load: %v", err)
	}
}

// TestFrozenRankIsNamed freezes one of 4 workers (SIGSTOP) mid-epoch: the
// other three fail once the timeout has passed (plus the diagnosis), with
// an error naming rank 2, rather than waiting forever. The bound is loose
// (these machines are shared); the log shows the measured delays.
func TestFrozenRankIsNamed(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	dir := t.TempDir()
	start := time.Now()
	res := disttest.Run(t, "frozen-mid-epoch", 4, 2*time.Minute, "TEST_ENGINE=gorgonia", "TEST_OUT="+dir)
	data, err := os.ReadFile(filepath.Join(dir, "frozen-at"))
	if err != nil {
		t.Fatalf("rank 2 did not reach batch 20: %v\n%s", err, res[2].Output)
	}
	ms, _ := strconv.ParseInt(string(data), 10, 64)
	frozenAt := time.UnixMilli(ms)
	for _, r := range res {
		if r.Rank == 2 {
			continue
		}
		if r.Err == nil || !strings.Contains(r.Output, "lost rank 2 of 4") {
			t.Errorf("rank %d: %v, want an error naming rank 2:\n%s", r.Rank, r.Err, r.Output)
			continue
		}
		// The timeout, 1.5 s of diagnosis, and for rank 0 (which hosts
		// the store) up to 7 s more while the others finish theirs.
		if after := start.Add(r.Took).Sub(frozenAt); after > frozenTimeout+9*time.Second {
			t.Errorf("rank %d failed %v after rank 2 froze, timeout %v", r.Rank, after, frozenTimeout)
		} else {
			t.Logf("rank %d failed %v after rank 2 froze: %s", r.Rank, after.Round(10*time.Millisecond), lastLine(r.Output))
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
