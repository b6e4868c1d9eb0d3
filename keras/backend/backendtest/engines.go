package backendtest

import (
	"os"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// TestEnginesEnv names the engines ForEachEngine runs on, as a comma
// list ("gorgonia,libtorch:cpu"). Unset, it runs on every registered one.
const TestEnginesEnv = "KERASGO_TEST_BACKENDS"

// Engines returns the engine specs tests run on.
func Engines() []string {
	if v := strings.TrimSpace(os.Getenv(TestEnginesEnv)); v != "" {
		return strings.Split(v, ",")
	}
	return backend.Names()
}

// ForEachEngine runs f as a subtest on each engine of Engines, so that one
// test body covers every engine. An engine that is registered but cannot
// open here (say, libtorch built without its tag) is skipped with the
// reason.
//
// With no engine registered it fails: the test would check nothing (blank-
// import github.com/kerasgo/kerasgo/backends/all in the test file).
func ForEachEngine(t *testing.T, f func(t *testing.T, be backend.Backend)) {
	t.Helper()
	if len(Engines()) == 0 {
		t.Fatal("no engine is registered, so this test would check nothing: blank-import github.com/kerasgo/kerasgo/backends/all in the test package")
	}
	for _, spec := range Engines() {
		t.Run(spec, func(t *testing.T) {
			be, err := backend.Open(spec)
			if err != nil {
				t.Skipf("engine %s is not available: %v", spec, err)
			}
			defer be.Close()
			f(t, be)
		})
	}
}
