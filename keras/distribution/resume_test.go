//go:build libtorch && cgo

package distribution_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/distribution/c10d"
)

func init() { workers["resume-mlp"] = resumeWorker }

// resumeWorker trains the MLP for 3 shuffled epochs with a
// BackupAndRestore callback, and writes attempt<N>-rank<r> holding the
// first epoch it trains. With KILL_ONCE set, rank 1 of the job's first
// attempt kills itself in the middle of epoch 2; the restarted attempt
// resumes from the backup. The final weights go to final-rank<r>.json.
func resumeWorker() error {
	dp, m, err := joinMLP(20*time.Second, false)
	if err != nil {
		return err
	}
	defer dp.Close()
	dir := os.Getenv("TEST_OUT")
	attempt := "attempt" + os.Getenv("TORCHELASTIC_RESTART_COUNT") + "-rank" + os.Getenv("RANK")
	if err := os.WriteFile(filepath.Join(dir, attempt), nil, 0o644); err != nil {
		return err
	}
	first := -1
	cbs := []callbacks.Callback{callbacks.NewBackupAndRestore(filepath.Join(dir, "backup")), &callbacks.Lambda{EpochBegin: func(e int) {
		if first < 0 {
			first = e
			os.WriteFile(filepath.Join(dir, attempt), []byte(strconv.Itoa(e)), 0o644)
		}
	}}}
	if os.Getenv("MARK_EPOCH_1") != "" && dp.Rank() == 0 {
		// For a test that kills a machine: rank 0 says when it is in the
		// middle of epoch 2 (once).
		epoch := 0
		mark := filepath.Join(dir, "epoch1-batch10")
		cbs = append(cbs, &callbacks.Lambda{
			EpochBegin: func(e int) { epoch = e },
			TrainBatchEnd: func(batch int, _ callbacks.Logs) {
				if epoch == 1 && batch == 10 {
					if _, err := os.Stat(mark); err != nil {
						os.WriteFile(mark, nil, 0o644)
					}
				}
			},
		})
	}
	if os.Getenv("KILL_ONCE") != "" && os.Getenv("TORCHELASTIC_RESTART_COUNT") == "0" {
		epoch := 0
		cbs = append(cbs, &callbacks.Lambda{
			EpochBegin: func(e int) { epoch = e },
			TrainBatchEnd: func(batch int, _ callbacks.Logs) {
				if dp.Rank() == 1 && epoch == 1 && batch == 10 {
					os.WriteFile(filepath.Join(dir, "killed"), nil, 0o644)
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
			},
		})
	}
	x, y := mlpData(steps * perRank * dp.WorldSize())
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 3, BatchSize: perRank, Seed: 11, Verbose: keras.Silent, Callbacks: cbs}); err != nil {
		return err
	}
	ws, err := m.GetWeights()
	if err != nil {
		return err
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "final-rank"+os.Getenv("RANK")+".json"), data, 0o644)
}

// TestElasticRestartResumes: torchrun --max_restarts 1 restarts a job
// whose rank 1 died mid-epoch; with BackupAndRestore the new attempt
// resumes from the last completed epoch and ends with the weights of a
// job that was never interrupted.
func TestElasticRestartResumes(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	python := disttest.Python(t, c10d.TorchVersion()) // whose torchrun starts the job
	whole := t.TempDir()
	for _, r := range disttest.Run(t, "resume-mlp", 2, 3*time.Minute, "TEST_ENGINE=gorgonia", "TEST_OUT="+whole, "TORCHELASTIC_RESTART_COUNT=0") {
		if r.Err != nil {
			t.Fatalf("uninterrupted rank %d: %v\n%s", r.Rank, r.Err, r.Output)
		}
	}
	restarted := t.TempDir()
	cmd := disttest.Torchrun(python, "--no_python", "--nproc_per_node", "2", "--max_restarts", "1", "--master_port", strconv.Itoa(disttest.FreePort(t)),
		"--redirects", "1", "--tee", "1", "--log_dir", t.TempDir(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), disttest.WorkerVar+"=resume-mlp", "TEST_ENGINE=gorgonia", "TEST_OUT="+restarted, "KILL_ONCE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("torchrun: %v\n%s", err, out)
	}
	for _, f := range []string{"killed", "attempt1-rank0", "attempt1-rank1"} {
		data, err := os.ReadFile(filepath.Join(restarted, f))
		if err != nil {
			t.Fatalf("no %s: rank 1 was not killed, or torchrun did not restart the job\n%s", f, out)
		}
		if f != "killed" && string(data) != "1" {
			t.Fatalf("%s began at epoch %q, want 1: the restarted job did not resume from the backup", f, data)
		}
	}
	compareFinalWeights(t, whole, restarted, 2, string(out))
}

// compareFinalWeights compares the final-rank<r>.json weights that the
// resume-mlp workers of a restarted job wrote in got with those of an
// uninterrupted job in want, within 1e-6; output is shown on failure.
func compareFinalWeights(t *testing.T, want, got string, world int, output string) {
	t.Helper()
	read := func(dir string, rank int) [][]float32 {
		data, err := os.ReadFile(filepath.Join(dir, "final-rank"+strconv.Itoa(rank)+".json"))
		if err != nil {
			t.Fatalf("%v\n%s", err, output)
		}
		var ws [][]float32
		if err := json.Unmarshal(data, &ws); err != nil {
			t.Fatal(err)
		}
		return ws
	}
	for rank := range world {
		w, g := read(want, rank), read(got, rank)
		for i := range w {
			for j := range w[i] {
				if math.Abs(float64(g[i][j]-w[i][j])) > 1e-6 {
					t.Fatalf("rank %d weight %d[%d]: restarted job %v, uninterrupted %v", rank, i, j, g[i][j], w[i][j])
				}
			}
		}
	}
}
