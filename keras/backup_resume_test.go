package keras_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

const resumeChildEnv = "KERASGO_TEST_RESUME_DIR"

// resumableFit trains 5 epochs (Adam, shuffled, fixed seed, no dropout)
// with BackupAndRestore in dir, printing each epoch's start; with slow,
// epoch 2 is slowed down so that a kill lands inside it.
func resumableFit(t *testing.T, dir string, slow bool, out *os.File) *keras.Model {
	x, y := smallData(512)
	m := smallMLP(t, false)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: "sparse_categorical_crossentropy", Seed: 21}); err != nil {
		t.Fatal(err)
	}
	current := 0
	log := &callbacks.Lambda{
		EpochBegin: func(e int) { current = e; fmt.Fprintf(out, "epoch %d\n", e) },
		TrainBatchEnd: func(int, callbacks.Logs) {
			if slow && current == 2 {
				time.Sleep(2 * time.Millisecond)
			}
		},
	}
	backup := callbacks.NewBackupAndRestore(filepath.Join(dir, "backup"))
	_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 5, BatchSize: 8, Seed: 99, Callbacks: []callbacks.Callback{backup, log}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A training process killed (SIGKILL) during epoch 3 and started again
// with the same BackupAndRestore resumes after epoch 2 and ends with the
// weights of an uninterrupted run (within 1e-5), shuffling included.
func TestBackupAndRestoreAfterKill(t *testing.T) {
	if dir := os.Getenv(resumeChildEnv); dir != "" {
		m := resumableFit(t, dir, true, os.Stdout)
		if err := m.SaveWeights(filepath.Join(dir, "final.safetensors")); err != nil {
			t.Fatal(err)
		}
		return
	}
	skipWithLibtorch(t)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := func(kill bool) string {
		cmd := exec.Command(exe, "-test.run=^TestBackupAndRestoreAfterKill$")
		cmd.Env = append(os.Environ(), resumeChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var seen []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "epoch ") {
				seen = append(seen, strings.TrimPrefix(line, "epoch "))
			}
			if kill && line == "epoch 2" {
				time.Sleep(100 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		cmd.Wait()
		return strings.Join(seen, ",")
	}
	if got := child(true); got != "0,1,2" {
		t.Fatalf("the first run saw epochs %s before the kill, want 0,1,2", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "backup", "training_metadata.json")); err != nil {
		t.Fatalf("no backup after the kill: %v", err)
	}
	if got := child(false); got != "2,3,4" {
		t.Fatalf("the resumed run trained epochs %s, want 2,3,4", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "backup")); !os.IsNotExist(err) {
		t.Errorf("the backup directory is still there after a completed run: %v", err)
	}
	resumed := smallMLP(t, false)
	if err := resumed.LoadWeights(filepath.Join(dir, "final.safetensors")); err != nil {
		t.Fatal(err)
	}
	whole := resumableFit(t, t.TempDir(), false, devNull(t))
	a, _ := whole.GetWeights()
	b, _ := resumed.GetWeights()
	for i := range a {
		if d := maxDiff(a[i], b[i]); d > 1e-5 {
			t.Errorf("weight %d differs by %g from the uninterrupted run", i, d)
		}
	}
}

func devNull(t *testing.T) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
