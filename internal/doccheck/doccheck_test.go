package doccheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every Go block of README.md and docs/ compiles as shown: the pages'
// programs (see the package doc) pass go vet.
func TestDocsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("the docs' programs are type-checked in the full run (go test without -short)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	pages = append(append(pages, more...), filepath.Join(root, "README.md"))
	out := filepath.Join(root, "build", "_doccheck") // "_": not part of ./...
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	blocks := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		progs, err := Programs(rel, string(text))
		if err != nil {
			t.Error(err)
			continue
		}
		blocks += strings.Count(string(text), "```go")
		for i, p := range progs {
			dir := filepath.Join(out, fmt.Sprintf("%s-%d", strings.NewReplacer("/", "-", ".", "-").Replace(rel), i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(p.Source), 0o644); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, "./"+filepath.ToSlash(must(filepath.Rel(root, dir))))
		}
	}
	if blocks < 30 {
		t.Fatalf("found only %d Go blocks in the docs: the pages moved?", blocks)
	}
	cmd := exec.Command("go", append([]string{"vet"}, dirs...)...)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the docs' Go blocks do not compile (programs under build/_doccheck):\n%s", msg)
	}
	t.Logf("%d Go blocks in %d programs compile", blocks, len(dirs))
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}
