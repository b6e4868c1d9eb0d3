// Package kerasref runs Python Keras beside kerasgo's tests: the Keras
// 3 on JAX that `make keras-env` installs, pinned, in build/keras-env.
// Tests that need it call Python, which skips the test with one line
// saying how to enable it when the environment is not there (a
// newcomer's machine has no Python Keras, and make test passes there).
package kerasref

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// PythonEnv overrides where the Keras environment's python is.
const PythonEnv = "KERASGO_KERAS_PYTHON"

// TestsEnv set to "skip" skips every test that runs Python Keras: make
// test sets it, so that the newcomer's make test stays fast, and leaves
// those checks (minutes of Keras and JAX on 2 cores) to make test-keras,
// which .ci/run runs. Unset, a plain go test runs them wherever
// build/keras-env is installed.
const TestsEnv = "KERASGO_KERAS_TESTS"

// skipIfLeftToTestKeras skips t under make test (TestsEnv "skip").
func skipIfLeftToTestKeras(t testing.TB) {
	t.Helper()
	if os.Getenv(TestsEnv) == "skip" {
		t.Skipf("Keras reference tests SKIPPED: make test leaves the checks against Python Keras to make test-keras (minutes; CI runs it): run make test-keras")
	}
}

// Python returns the Keras environment's python, or skips t.
func Python(t testing.TB) string {
	t.Helper()
	skipIfLeftToTestKeras(t)
	if p := os.Getenv(PythonEnv); p != "" {
		return p
	}
	root, err := moduleRoot()
	if err == nil {
		p := filepath.Join(root, "build", "keras-env", "bin", "python")
		if _, err = os.Stat(filepath.Join(root, "build", "keras-env", ".installed")); err == nil {
			return p
		}
	}
	t.Skipf("Keras reference tests SKIPPED: no Python Keras here (%v): run `make keras-env` (Keras 3.15.1 on JAX, pinned, into build/keras-env), then the tests again", err)
	return ""
}

// Versions returns the older Keras 3 releases `make keras-env` installed
// (build/keras-env/versions/<version>, each a directory to put on
// PYTHONPATH), by version, or skips t when there are none.
func Versions(t testing.TB) map[string]string {
	t.Helper()
	skipIfLeftToTestKeras(t)
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "build", "keras-env", "versions")
	entries, _ := os.ReadDir(dir)
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()] = filepath.Join(dir, e.Name())
		}
	}
	if len(out) == 0 {
		t.Skipf("Keras version tests SKIPPED: no older Keras releases in %s: run `make keras-env`", dir)
	}
	return out
}

// Script returns the path of scripts/name in the repository.
func Script(t testing.TB, name string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "scripts", name)
}

// Run runs python on args with Keras on its JAX backend and fails t with
// the script's output when it fails.
func Run(t testing.TB, python string, args ...string) []byte {
	t.Helper()
	return RunEnv(t, python, nil, args...)
}

// RunEnv is Run with environment variables (KEY=value) added after
// Run's, which they override (KERAS_BACKEND=numpy, PYTHONPATH=...).
// JAX keeps what it compiles in build/keras-env/jax-cache, so that the
// second run of a script (make test's libtorch pass, a test run again)
// does not compile it again (the layer golden check: 49 s, then 13 s).
func RunEnv(t testing.TB, python string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(python, args...)
	cmd.Env = append(os.Environ(), "KERAS_BACKEND=jax", "JAX_PLATFORMS=cpu", "TF_CPP_MIN_LOG_LEVEL=3")
	if root, err := moduleRoot(); err == nil {
		cmd.Env = append(cmd.Env,
			"JAX_COMPILATION_CACHE_DIR="+filepath.Join(root, "build", "keras-env", "jax-cache"),
			"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0",
			"JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=0")
	}
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", python, args, err, out.Bytes())
	}
	return out.Bytes()
}

// moduleRoot returns the directory of kerasgo's go.mod, above the
// working directory of the test.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
