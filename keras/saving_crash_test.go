package keras_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

const crashChildEnv = "KERASGO_TEST_SAVE_CHILD"

// crashModel has about 70,000 weights, so that a save takes long enough
// to be interrupted in the middle.
func crashModel(t *testing.T, fill float32) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{256}}, &layers.Dense{Units: 256, Activation: "relu"}, &layers.Dense{Units: 10})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		for i := range w {
			w[i] = fill
		}
	}
	if err := m.SetWeights(ws); err != nil {
		t.Fatal(err)
	}
	return m
}

// A process killed (SIGKILL) at random moments while it saves, over and
// over, never leaves an unreadable model at the target path: LoadModel
// always finds one of the two complete versions the child alternates
// between.
func TestSaveSurvivesKill(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		a, b := crashModel(t, 0.25), crashModel(t, -0.5)
		fmt.Println("saving")
		for i := 0; ; i++ {
			m := a
			if i%2 == 1 {
				m = b
			}
			if err := m.Save(path); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	if testing.Short() {
		t.Skip("spawns 200 processes")
	}
	skipWithLibtorch(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "model.keras")
	if err := crashModel(t, 0.25).Save(path); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const kills = 200
	for i := 0; i < kills; i++ {
		cmd := exec.Command(exe, "-test.run=^TestSaveSurvivesKill$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "saving\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child %d did not start saving: %q", i, line)
		}
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		m, err := keras.LoadModel(path)
		if err != nil {
			t.Fatalf("after kill %d the model at the target path does not load: %v", i+1, err)
		}
		ws, err := m.GetWeights()
		if err != nil {
			t.Fatal(err)
		}
		first := ws[0][0]
		if first != 0.25 && first != -0.5 {
			t.Fatalf("after kill %d the loaded weights are %v, neither saved version", i+1, first)
		}
		for _, w := range ws {
			for _, v := range w {
				if v != first {
					t.Fatalf("after kill %d the loaded model mixes two versions (%v and %v)", i+1, first, v)
				}
			}
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".model.keras.tmp-*"))
	t.Logf("%d kills; every time the target loaded; %d temporary files left by killed saves", kills, len(left))
}

// skipWithLibtorch skips a test that spawns copies of the test binary when
// the libtorch engine is compiled in: what it checks (file writes, the
// training loop) does not depend on the engine, the pure-Go pass of make
// test runs it, and every child would load libtorch's libraries first.
func skipWithLibtorch(t *testing.T) {
	t.Helper()
	if be, err := backend.Open("libtorch"); err == nil {
		be.Close()
		t.Skip("engine-independent and run by the build without libtorch; children of this binary would each load libtorch")
	}
}
