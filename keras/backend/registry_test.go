package backend_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

func writeConfig(t *testing.T, home, content string) {
	t.Helper()
	dir := filepath.Join(home, ".kerasgo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kerasgo.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolvePrecedence(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(backend.EnvVar, "")

	check := func(explicit, wantSpec, wantSource string) {
		t.Helper()
		sel, err := backend.Resolve(explicit)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Spec != wantSpec || !strings.Contains(sel.Source, wantSource) {
			t.Errorf("Resolve(%q) = %+v, want %s from %s", explicit, sel, wantSpec, wantSource)
		}
	}
	check("", "gorgonia", "default")
	writeConfig(t, home, `{"backend": "libtorch:cpu"}`)
	check("", "libtorch:cpu", "kerasgo.json")
	t.Setenv(backend.EnvVar, "libtorch:cuda:1")
	check("", "libtorch:cuda:1", "$KERASGO_BACKEND")
	check("gorgonia", "gorgonia", "argument")

	t.Setenv(backend.EnvVar, "")
	writeConfig(t, home, `{"backend": `)
	if _, err := backend.Resolve(""); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("broken config: error = %v", err)
	}
}

func TestSplitSpec(t *testing.T) {
	for spec, want := range map[string][2]string{
		"gorgonia": {"gorgonia", ""}, "libtorch:cuda:1": {"libtorch", "cuda:1"}, " libtorch:cpu ": {"libtorch", "cpu"},
	} {
		if n, d := backend.SplitSpec(spec); n != want[0] || d != want[1] {
			t.Errorf("SplitSpec(%q) = %q, %q", spec, n, d)
		}
	}
}

func TestOpenUnknownEngineSaysWhatToDo(t *testing.T) {
	_, err := backend.Open("nosuchengine")
	if err == nil || !strings.Contains(err.Error(), `import _ "github.com/kerasgo/kerasgo/backends/nosuchengine"`) {
		t.Errorf("error = %v", err)
	}
}

// DESIGN.md: nothing under keras/ imports an engine; layers, losses and the
// training loop know only the backend contract.
func TestKerasImportsNoEngine(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/kerasgo/kerasgo/keras/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gorgonia.org/") || strings.HasPrefix(dep, "github.com/sugarme/") || strings.HasPrefix(dep, "github.com/kerasgo/kerasgo/backends/") {
			t.Errorf("a package under keras/ depends on %s", dep)
		}
	}
}
