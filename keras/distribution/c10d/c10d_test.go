//go:build libtorch && cgo

package c10d_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/keras/distribution/c10d"
)

func TestMain(m *testing.M) {
	switch os.Getenv(disttest.WorkerVar) {
	case "":
		os.Exit(m.Run())
	case "collectives":
		exit(collectivesWorker())
	case "collectives-with-python":
		exit(pythonPeerWorker())
	}
	exit(fmt.Errorf("unknown worker %q", os.Getenv(disttest.WorkerVar)))
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// NCCL's process group is compiled in where the build expects it (make
// cuda-build sets KERASGO_EXPECT_NCCL=1: a CUDA libtorch with NCCL's
// headers), and only there.
func TestNCCLCompiled(t *testing.T) {
	want := os.Getenv("KERASGO_EXPECT_NCCL")
	got := c10d.NCCLCompiled()
	switch want {
	case "1":
		if !got {
			t.Fatal("NCCL's process group was not compiled in: the CUDA libtorch's NCCL or CUDA headers were not found (see kerasgo libtorch's NCCLIncludeDirs in build/gotch-pypi/libtorch.json)")
		}
	case "0":
		if got {
			t.Fatal("NCCL's process group was compiled in, but this build expects none")
		}
	default:
		t.Logf("NCCL compiled in: %v (set KERASGO_EXPECT_NCCL=1 or 0 to check it)", got)
	}
}

// TestNCCLOneProcess runs c10d's NCCL path on a GPU with one process (NCCL
// refuses two ranks on one GPU): a group opened where a GPU is present
// sums CUDA tensors through NCCL, and a CUDA tensor summed over its one
// rank comes back unchanged and still on the GPU; host buffers still go
// through Gloo. It skips without an NCCL build (make cuda-build) or a GPU.
func TestNCCLOneProcess(t *testing.T) {
	skipWithoutC10d(t)
	if !c10d.NCCLCompiled() {
		t.Skip("NCCL test SKIPPED: this build has no NCCL process group (make cuda-build builds one)")
	}
	var cu gotch.Cuda
	if cu.DeviceCount() == 0 {
		t.Skip("NCCL test SKIPPED: no GPU here")
	}
	g, err := c10d.Open(c10d.Options{Host: "127.0.0.1", Port: disttest.Port(), Rank: 0, WorldSize: 1, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !g.NCCL() {
		t.Fatal("a group opened with a GPU present does not use NCCL for CUDA tensors")
	}
	want := make([]float32, 4096)
	for i := range want {
		want[i] = float32(i%97) - 40.5
	}
	host, err := ts.OfSlice(want)
	if err != nil {
		t.Fatal(err)
	}
	defer host.MustDrop()
	x, err := host.To(gotch.CudaBuilder(0), false)
	if err != nil {
		t.Fatal(err)
	}
	defer x.MustDrop()
	if err := g.AllReduceTensor(x.Ctensor()); err != nil {
		t.Fatal(err)
	}
	if dev, err := x.Device(); err != nil || !dev.IsCuda() {
		t.Fatalf("after the allreduce the tensor is on %v (%v), want the GPU", dev, err)
	}
	got := x.Float64Values(false)
	for i, w := range want {
		if got[i] != float64(w) {
			t.Fatalf("NCCL allreduce over one rank: [%d] = %v, want %v", i, got[i], w)
		}
	}
	h := []float32{1, 2, 3}
	if err := g.AllReduceFloat32(h); err != nil || h[2] != 3 {
		t.Fatalf("Gloo allreduce beside NCCL: %v, %v", h, err)
	}
	t.Logf("NCCL allreduce of a %d-float CUDA tensor over one rank: unchanged, on the GPU", len(want))
}

func openFromEnv() (*c10d.Group, int, int, error) {
	rank, _ := strconv.Atoi(os.Getenv("RANK"))
	world, _ := strconv.Atoi(os.Getenv("WORLD_SIZE"))
	g, err := c10d.Open(c10d.Options{Host: "127.0.0.1", Port: disttest.Port(), Rank: rank, WorldSize: world, Timeout: 60 * time.Second})
	return g, rank, world, err
}

// collectivesWorker checks allreduce (float32, float64), broadcast and
// barrier against sums it computes itself, and prints the float32 sum.
func collectivesWorker() error {
	g, rank, world, err := openFromEnv()
	if err != nil {
		return err
	}
	defer g.Close()
	const n = 1000
	f := make([]float32, n)
	d := make([]float64, n)
	for i := range f {
		f[i] = float32(rank+1) * float32(i) / 8 // exact in float32
		d[i] = float64(rank+1) * float64(i) / 3
	}
	if err := g.AllReduceFloat32(f); err != nil {
		return err
	}
	if err := g.AllReduceFloat64(d); err != nil {
		return err
	}
	ranks := float64(world * (world + 1) / 2) // 1 + 2 + ... + world
	for i := range f {
		if want := float32(ranks) * float32(i) / 8; f[i] != want {
			return fmt.Errorf("float32 allreduce: [%d] = %v, want %v", i, f[i], want)
		}
		if want := ranks * float64(i) / 3; d[i] < want*(1-1e-12) || d[i] > want*(1+1e-12) {
			return fmt.Errorf("float64 allreduce: [%d] = %v, want %v", i, d[i], want)
		}
	}
	b := []float32{float32(rank), float32(rank * 10)}
	if err := g.BroadcastFloat32(b, world-1); err != nil {
		return err
	}
	if b[0] != float32(world-1) || b[1] != float32((world-1)*10) {
		return fmt.Errorf("broadcast from rank %d: got %v", world-1, b)
	}
	if err := g.Barrier(); err != nil {
		return err
	}
	fmt.Printf("sum %v %v\n", f[1], f[n-1])
	return nil
}

func skipWithoutC10d(t *testing.T) {
	if err := c10d.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
}

func TestCollectives(t *testing.T) {
	skipWithoutC10d(t)
	for _, world := range []int{2, 4} {
		t.Run(strconv.Itoa(world), func(t *testing.T) {
			for _, r := range disttest.Run(t, "collectives", world, 2*time.Minute) {
				if r.Err != nil {
					t.Errorf("rank %d: %v\n%s", r.Rank, r.Err, r.Output)
				}
			}
		})
	}
}

// TestPythonJoins has a Go rank and a Python rank (torch.distributed's
// TCPStore and ProcessGroupGloo) allreduce together: kerasgo speaks real
// c10d. The Python's torch must have the version of the libtorch the test
// links (c10d's wire protocol changed between 1.13 and 2.x):
// disttest.Python finds one (Debian's python3-torch for Debian's
// libtorch, the virtual environment's for PyPI's) or skips.
func TestPythonJoins(t *testing.T) {
	skipWithoutC10d(t)
	python := disttest.Python(t, c10d.TorchVersion())
	port := disttest.FreePort(t)
	script := filepath.Join("testdata", "python_rank.py")
	py := exec.Command(python, script, "127.0.0.1", strconv.Itoa(port), "1", "2")
	pyOut := &strings.Builder{}
	py.Stdout, py.Stderr = pyOut, pyOut
	if err := py.Start(); err != nil {
		t.Fatal(err)
	}
	res := disttest.RunSome(t, "collectives-with-python", 1, 2, 2*time.Minute, "MASTER_PORT="+strconv.Itoa(port))
	pyErr := py.Wait()
	if res[0].Err != nil || pyErr != nil {
		t.Fatalf("Go rank 0: %v\n%s\nPython rank 1: %v\n%s", res[0].Err, res[0].Output, pyErr, pyOut)
	}
	if !strings.Contains(pyOut.String(), "python ok") || !strings.Contains(res[0].Output, "go ok") {
		t.Fatalf("a rank did not finish:\nGo: %s\nPython: %s", res[0].Output, pyOut)
	}
}

// pythonPeerWorker is rank 0 of TestPythonJoins: the same collectives as
// the Python rank, checked the same way.
func pythonPeerWorker() error {
	g, rank, world, err := openFromEnv()
	if err != nil {
		return err
	}
	defer g.Close()
	x := make([]float32, 1000)
	for i := range x {
		x[i] = float32(i) * float32(rank+1) / 8
	}
	if err := g.AllReduceFloat32(x); err != nil {
		return err
	}
	for i := range x {
		if want := float32(i) * float32(world*(world+1)/2) / 8; x[i] != want {
			return fmt.Errorf("float32 allreduce with Python: [%d] = %v, want %v", i, x[i], want)
		}
	}
	y := make([]float64, 10)
	for i := range y {
		y[i] = float64(i) * float64(rank+1)
	}
	if err := g.AllReduceFloat64(y); err != nil {
		return err
	}
	for i := range y {
		if y[i] != float64(i)*3 {
			return fmt.Errorf("float64 allreduce with Python: [%d] = %v, want %v", i, y[i], float64(i)*3)
		}
	}
	b := []float32{float32(rank), float32(rank * 10)}
	if err := g.BroadcastFloat32(b, 0); err != nil {
		return err
	}
	if err := g.Barrier(); err != nil {
		return err
	}
	fmt.Println("go ok", x[1], y[1])
	return nil
}

// TorchVersion names the linked libtorch as major.minor.patch, what a
// launcher's PyTorch is matched against.
func TestTorchVersion(t *testing.T) {
	v := c10d.TorchVersion()
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(v) {
		t.Fatalf("TorchVersion() = %q, want major.minor.patch", v)
	}
	t.Logf("linked libtorch %s", v)
}
