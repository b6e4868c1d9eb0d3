//go:build libtorch && cgo

package distribution_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/distribution/c10d"
)

// TestTorchrunLaunchesWorkers starts the MLP job with PyTorch's own
// launcher, `torchrun --no_python` (Debian's python3-torch): its agent
// hosts the store and its variables are the contract. The ranks train as
// under kerasgo launch.
func TestTorchrunLaunchesWorkers(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	python := disttest.Python(t, c10d.TorchVersion()) // whose torchrun starts the job
	dir := t.TempDir()
	// --redirects 1 --tee 1: torchrun 1.13 under Python 3.11 fails on its
	// defaults ("0", Std.NONE, which 3.11's enum no longer iterates);
	// this sends each worker's stdout to a log file and to the console.
	cmd := disttest.Torchrun(python, "--no_python", "--nproc_per_node", "2", "--master_port", strconv.Itoa(disttest.FreePort(t)),
		"--redirects", "1", "--tee", "1", "--log_dir", t.TempDir(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), disttest.WorkerVar+"=train-mlp", "TEST_ENGINE=gorgonia", "TEST_OUT="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("torchrun: %v\n%s", err, out)
	}
	checkRanks(t, "gorgonia", 2, dir)
}
