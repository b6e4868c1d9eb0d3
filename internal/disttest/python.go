package disttest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// PythonVar names a Python whose PyTorch a test should use (with Gloo) for
// PyTorch's own launcher or a Python rank, before the ones Python finds.
const PythonVar = "C10D_PYTHON"

// Python returns a Python interpreter whose PyTorch has Gloo and the same
// major and minor version as torchVersion, the libtorch this test binary
// links (c10d.TorchVersion()): c10d's wire protocol changed between 1.13
// and 2.x, so a torchrun or a Python rank of another version only resets
// the ranks' connections. It tries $C10D_PYTHON, the Python of the
// virtual environment whose torch/lib this process loaded libtorch from
// (PyPI's torch), and Debian's /usr/bin/python3 (python3-torch, the same
// 1.13 as libtorch-dev), and skips the test, saying what it found, when
// none matches.
func Python(t testing.TB, torchVersion string) string {
	t.Helper()
	want := majorMinor(torchVersion)
	var seen []string
	for _, py := range pythonCandidates() {
		out, err := exec.Command(py, "-c", "import torch, torch.distributed as d; assert d.is_gloo_available(); print(torch.__version__)").Output()
		if err != nil {
			seen = append(seen, py+": no PyTorch with Gloo")
			continue
		}
		got := strings.TrimSpace(string(out))
		if want != "" && majorMinor(got) == want {
			return py
		}
		seen = append(seen, py+": PyTorch "+got)
	}
	t.Skipf("no Python with PyTorch %s and Gloo, the libtorch this test links (set %s to one; found %s)", torchVersion, PythonVar, strings.Join(seen, "; "))
	return ""
}

// pythonCandidates lists the Pythons Python tries, in order, each once.
func pythonCandidates() []string {
	var c []string
	if p := os.Getenv(PythonVar); p != "" {
		c = append(c, p)
	}
	if dir := loadedTorchDir(); dir != "" {
		// <venv>/lib/python3.X/site-packages/torch
		venv := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(dir))))
		if py := filepath.Join(venv, "bin", "python"); fileExists(py) {
			c = append(c, py)
		}
	}
	if fileExists("/usr/bin/python3") {
		c = append(c, "/usr/bin/python3")
	}
	return c
}

// loadedTorchDir returns the torch package directory whose lib/ this
// process loaded libtorch_cpu.so from (PyPI's torch: .../site-packages/torch),
// or "" when it was loaded from elsewhere or cannot be told (/proc/self/maps).
func loadedTorchDir() string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 6 {
			continue
		}
		path := fields[len(fields)-1]
		if filepath.Base(path) == "libtorch_cpu.so" && filepath.Base(filepath.Dir(path)) == "lib" &&
			filepath.Base(filepath.Dir(filepath.Dir(path))) == "torch" {
			return filepath.Dir(filepath.Dir(path))
		}
	}
	return ""
}

// majorMinor returns "2.9" for "2.9.1+cu128", "" for "".
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[0] + "." + parts[1]
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Torchrun returns the command `torchrun args...` of python's PyTorch
// (python -m torch.distributed.run), python as Python found it.
func Torchrun(python string, args ...string) *exec.Cmd {
	return exec.Command(python, append([]string{"-m", "torch.distributed.run"}, args...)...)
}
