package libtorchbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// generatorVersion changes whenever Generate's output would; a change
// invalidates build files written before.
const generatorVersion = 3

// Overlay is what Generate wrote.
type Overlay struct {
	Key     string // what the files were generated from; see Current
	Install Install
	File    string // the overlay JSON for go build -overlay
	// UnpatchedFile is an overlay without kerasgo's fixes to gotch's Go
	// sources (see PatchTensorWrappers): gotch as released, for the
	// benchmarks' raw gotch reference.
	UnpatchedFile string
	ModFile       string   // the alternate go.mod for go build -modfile
	Stubbed       []string // wrappers replaced because they do not compile
	GotchDir      string   // gotch's module in the module cache
}

// GoFlags returns the flags that build with the libtorch engine.
func (o *Overlay) GoFlags() string {
	if o.ModFile == "" { // gotch is vendored: the overlay patches it in place
		return fmt.Sprintf("-tags=libtorch -overlay=%s", o.File)
	}
	return fmt.Sprintf("-tags=libtorch -modfile=%s -overlay=%s", o.ModFile, o.File)
}

// inModuleCache reports whether dir is under GOMODCACHE, where the go
// command refuses overlays.
func inModuleCache(dir string) bool {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	cache := strings.TrimSpace(string(out))
	if err != nil || cache == "" {
		return true
	}
	rel, err := filepath.Rel(cache, dir)
	return err == nil && !strings.HasPrefix(rel, "..")
}

// Generate writes the build files for inst into outDir (for example
// build/gotch) and returns them. gotchDir is the gotch module's directory
// in the module cache and moduleRoot the directory of kerasgo's go.mod.
//
// Go refuses overlays of files under GOMODCACHE, so gotch's packages are
// copied (read only, without its examples and generator) to outDir/src, an
// alternate go.mod (outDir/go.mod, for -modfile) replaces gotch with that
// copy, and the overlay swaps the copy's lib.go and torch_api.cpp for the
// generated ones and two of its Go files for fixed ones (sourcePatches:
// memory leaks and a per-tensor ballast). For a libtorch other than 2.1
// the wrappers are compiled (syntax only, with $CXX or g++) and those that
// fail are stubbed, until the file compiles. Progress goes to log.
func Generate(inst *Install, gotchDir, moduleRoot, outDir string, log io.Writer) (*Overlay, error) {
	outDir, err := filepath.Abs(outDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	src, modFile := gotchDir, ""
	if inModuleCache(gotchDir) {
		src = filepath.Join(outDir, "src")
		if err := os.RemoveAll(src); err != nil {
			return nil, err
		}
		if err := copyTree(gotchDir, src, map[string]bool{"example": true, "gen": true}); err != nil {
			return nil, fmt.Errorf("copying gotch to %s: %w", src, err)
		}
		if modFile, err = writeModFile(moduleRoot, outDir, src); err != nil {
			return nil, err
		}
	}
	libtch := filepath.Join(src, "libtch")
	api, err := os.ReadFile(filepath.Join(libtch, "torch_api.cpp"))
	if err != nil {
		return nil, fmt.Errorf("reading gotch's wrappers: %w", err)
	}
	gen, err := os.ReadFile(filepath.Join(libtch, "torch_api_generated.cpp.h"))
	if err != nil {
		return nil, fmt.Errorf("reading gotch's generated wrappers: %w", err)
	}
	const include = `#include "torch_api_generated.cpp.h"`
	if !bytes.Contains(api, []byte(include)) {
		return nil, fmt.Errorf("gotch's torch_api.cpp no longer includes torch_api_generated.cpp.h: this generator supports gotch v0.9.1")
	}
	code := bytes.Replace(api, []byte(include), append([]byte("// Inlined by kerasgo's libtorchbuild.\n"), gen...), 1)
	cppPath := filepath.Join(outDir, "torch_api.cpp")
	stubbed := map[string]bool{}
	for round := 1; ; round++ {
		if err := writeFileAtomic(cppPath, code); err != nil {
			return nil, err
		}
		if !inst.NeedsStubs() {
			break
		}
		fmt.Fprintf(log, "libtorch: compiling gotch's wrappers against libtorch %s (round %d)...\n", inst.Version, round)
		out, ok := syntaxCheck(inst, libtch, cppPath)
		if ok {
			break
		}
		failing := FailingFunctions(code, out, cppPath)
		fresh := 0
		for name := range failing {
			if !stubbed[name] {
				stubbed[name] = true
				fresh++
			}
		}
		if fresh == 0 || round == 6 {
			return nil, fmt.Errorf("gotch's wrappers still do not compile against libtorch %s after stubbing %d of them; compiler output:\n%s", inst.Version, len(stubbed), tail(out, 40))
		}
		code = StubFunctions(code, failing, func(name string) string {
			return fmt.Sprintf("%s is not available in this libtorch version (%s; gotch v0.9.1 was generated for libtorch %s)", name, inst.Version, TargetVersion)
		})
	}
	libGo := filepath.Join(outDir, "lib.go")
	if err := writeFileAtomic(libGo, []byte(cgoFile(inst))); err != nil {
		return nil, err
	}
	replace := map[string]string{
		filepath.Join(libtch, "lib.go"):        libGo,
		filepath.Join(libtch, "torch_api.cpp"): cppPath,
	}
	unpatched, err := writeOverlay(filepath.Join(outDir, "overlay-unpatched.json"), replace)
	if err != nil {
		return nil, err
	}
	for _, sp := range sourcePatches {
		in := filepath.Join(src, filepath.FromSlash(sp.file))
		code, err := os.ReadFile(in)
		if err != nil {
			return nil, fmt.Errorf("reading gotch's %s: %w", sp.file, err)
		}
		if code, err = sp.patch(code); err != nil {
			return nil, err
		}
		out := filepath.Join(outDir, "patched", filepath.FromSlash(sp.file))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(out, code); err != nil {
			return nil, err
		}
		replace[in] = out
	}
	file, err := writeOverlay(filepath.Join(outDir, "overlay.json"), replace)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(stubbed))
	for n := range stubbed {
		names = append(names, n)
	}
	sort.Strings(names)
	key, err := buildKey(inst, gotchDir, moduleRoot)
	if err != nil {
		return nil, err
	}
	o := &Overlay{Key: key, Install: *inst, File: file, UnpatchedFile: unpatched, ModFile: modFile, Stubbed: names, GotchDir: gotchDir}
	info, _ := json.MarshalIndent(o, "", "  ")
	if err := writeFileAtomic(filepath.Join(outDir, "libtorch.json"), info); err != nil {
		return nil, err
	}
	return o, nil
}

func cxxFlags(inst *Install, libtch string) []string {
	flags := []string{"-std=c++17", "-I" + libtch}
	for _, d := range inst.IncludeDirs {
		flags = append(flags, "-I"+d)
	}
	abi := "0"
	if inst.CXX11ABI {
		abi = "1"
	}
	return append(flags, "-D_GLIBCXX_USE_CXX11_ABI="+abi)
}

func syntaxCheck(inst *Install, libtch, file string) (string, bool) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	args := append(cxxFlags(inst, libtch), "-fsyntax-only", "-fmax-errors=0", "-w", file)
	out, err := exec.Command(cxx, args...).CombinedOutput()
	return string(out), err == nil
}

// cgoFile is the replacement for gotch's libtch/lib.go.
func cgoFile(inst *Install) string {
	var b strings.Builder
	b.WriteString("// Code generated by kerasgo's libtorchbuild for " + inst.Describe() + ". DO NOT EDIT.\n\npackage libtch\n\n")
	ld := []string{"-lstdc++", "-L" + inst.LibDir, "-Wl,-rpath," + inst.LibDir}
	if inst.CUDA {
		// Without --no-as-needed the linker drops libtorch_cuda (nothing
		// references it by name) and CUDA kernels are never registered.
		ld = append(ld, "-Wl,--no-as-needed", "-ltorch_cuda", "-lc10_cuda", "-Wl,--as-needed")
	}
	ld = append(ld, "-ltorch", "-ltorch_cpu", "-lc10")
	fmt.Fprintf(&b, "// #cgo LDFLAGS: %s\n", strings.Join(ld, " "))
	fmt.Fprintf(&b, "// #cgo CFLAGS: -I${SRCDIR} -O3 -Wall -Wno-unused-variable -Wno-deprecated-declarations -Wno-c++11-narrowing -Wno-sign-compare -Wno-unused-function\n")
	cxx := []string{"-std=c++17", "-I${SRCDIR}", "-O2", "-w"}
	for _, d := range inst.IncludeDirs {
		cxx = append(cxx, "-I"+d)
	}
	abi := "0"
	if inst.CXX11ABI {
		abi = "1"
	}
	cxx = append(cxx, "-D_GLIBCXX_USE_CXX11_ABI="+abi)
	fmt.Fprintf(&b, "// #cgo CXXFLAGS: %s\nimport \"C\"\n", strings.Join(cxx, " "))
	return b.String()
}

var (
	inFunctionRE = regexp.MustCompile(`In function ‘[^’]*?\b(\w+)\(`)
	funcStartRE  = regexp.MustCompile(`^[A-Za-z_][\w\s\*]*?\b(\w+)\(.*\)\s*\{\s*$`)
)

// FailingFunctions returns the names of the top-level functions of src
// (compiled as file) that the compiler output blames: by "In function"
// context lines and by error or "required from here" locations inside a
// function's lines.
func FailingFunctions(src []byte, compilerOutput, file string) map[string]bool {
	spans := functionSpans(src)
	out := map[string]bool{}
	locRE := regexp.MustCompile(regexp.QuoteMeta(file) + `:(\d+):\d+:`)
	for _, line := range strings.Split(compilerOutput, "\n") {
		if !strings.HasPrefix(line, file) {
			continue
		}
		if m := inFunctionRE.FindStringSubmatch(line); m != nil {
			if _, ok := spans[m[1]]; ok {
				out[m[1]] = true
			}
			continue
		}
		if m := locRE.FindStringSubmatch(line); m != nil && (strings.Contains(line, "error:") || strings.Contains(line, "required from here")) {
			var n int
			fmt.Sscan(m[1], &n)
			for name, sp := range spans {
				if n >= sp[0] && n <= sp[1] {
					out[name] = true
				}
			}
		}
	}
	return out
}

// functionSpans maps each top-level function (a definition starting at
// column 0 and ending with a "}" at column 0) to its first and last line,
// 1-based.
func functionSpans(src []byte) map[string][2]int {
	spans := map[string][2]int{}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		m := funcStartRE.FindStringSubmatch(lines[i])
		if m == nil || strings.HasPrefix(lines[i], "namespace") || strings.HasPrefix(lines[i], "struct") || strings.HasPrefix(lines[i], "class") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == "}" {
				spans[m[1]] = [2]int{i + 1, j + 1}
				i = j
				break
			}
		}
	}
	return spans
}

// StubFunctions replaces the bodies of the named top-level functions with
// one that records reason(name) as gotch's last error (through PROTECT,
// as every wrapper reports errors) and returns a zero value.
func StubFunctions(src []byte, names map[string]bool, reason func(string) string) []byte {
	lines := strings.Split(string(src), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		m := funcStartRE.FindStringSubmatch(lines[i])
		if m == nil || !names[m[1]] {
			out = append(out, lines[i])
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != "}" {
			j++
		}
		msg, _ := json.Marshal(reason(m[1])) // a valid C string literal for ASCII text
		out = append(out, lines[i], fmt.Sprintf("  PROTECT(throw std::runtime_error(%s);)", msg))
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "void ") {
			out = append(out, "  return {};")
		}
		out = append(out, "}")
		i = j
	}
	return []byte(strings.Join(out, "\n"))
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// writeFileAtomic writes through a temporary file and a rename, so a
// crash never leaves half a file behind.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// copyTree copies the regular files of from into to, skipping the named
// top-level directories.
func copyTree(from, to string, skip map[string]bool) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			if skip[rel] {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o444)
	})
}

// writeModFile writes outDir/go.mod: kerasgo's go.mod plus a replace of
// gotch by the copy, and the matching go.sum.
func writeModFile(moduleRoot, outDir, gotchCopy string) (string, error) {
	mod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(moduleRoot, "go.sum"))
	if err != nil {
		return "", err
	}
	mod = append(mod, fmt.Sprintf("\n// Added by kerasgo's libtorchbuild: gotch with its cgo flags and wrappers generated for this libtorch.\nreplace github.com/sugarme/gotch => %s\n", gotchCopy)...)
	path := filepath.Join(outDir, "go.mod")
	if err := writeFileAtomic(path, mod); err != nil {
		return "", err
	}
	return path, writeFileAtomic(filepath.Join(outDir, "go.sum"), sum)
}

// buildKey identifies the inputs of Generate: the libtorch, gotch, and
// kerasgo's go.mod and go.sum (copied into the alternate module file).
func buildKey(inst *Install, gotchDir, moduleRoot string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "v%d\n%+v\n%s\n", generatorVersion, *inst, gotchDir)
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(moduleRoot, f))
		if err != nil {
			return "", err
		}
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeOverlay writes a go build -overlay file with these replacements.
func writeOverlay(path string, replace map[string]string) (string, error) {
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "  ")
	if err != nil {
		return "", err
	}
	return path, writeFileAtomic(path, data)
}

// Current returns the build files in outDir if they were generated from
// the same inputs, so Generate need not run again.
func Current(inst *Install, gotchDir, moduleRoot, outDir string) (*Overlay, bool) {
	data, err := os.ReadFile(filepath.Join(outDir, "libtorch.json"))
	if err != nil {
		return nil, false
	}
	var o Overlay
	if json.Unmarshal(data, &o) != nil {
		return nil, false
	}
	key, err := buildKey(inst, gotchDir, moduleRoot)
	if err != nil || key != o.Key {
		return nil, false
	}
	for _, f := range []string{o.File, o.UnpatchedFile, o.ModFile} {
		if _, err := os.Stat(f); f != "" && err != nil {
			return nil, false
		}
	}
	return &o, true
}
