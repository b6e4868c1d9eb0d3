package libtorchbuild

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeLibtorch lays out an official-style libtorch (include/, lib/).
func fakeLibtorch(t *testing.T, version [3]string, cuda, cxx11 bool) string {
	t.Helper()
	root := t.TempDir()
	api := filepath.Join(root, "include", "torch", "csrc", "api", "include", "torch")
	if err := os.MkdirAll(api, 0o755); err != nil {
		t.Fatal(err)
	}
	vh := "#define TORCH_VERSION_MAJOR " + version[0] + "\n#define TORCH_VERSION_MINOR " + version[1] + "\n#define TORCH_VERSION_PATCH " + version[2] + "\n"
	os.WriteFile(filepath.Join(api, "version.h"), []byte(vh), 0o644)
	lib := filepath.Join(root, "lib")
	os.MkdirAll(lib, 0o755)
	c10 := "ELF...c10::Error"
	if cxx11 {
		c10 += "_ZNSt7__cxx1112basic_string"
	}
	os.WriteFile(filepath.Join(lib, "libc10.so"), []byte(c10), 0o644)
	os.WriteFile(filepath.Join(lib, "libtorch_cpu.so"), nil, 0o644)
	if cuda {
		os.WriteFile(filepath.Join(lib, "libtorch_cuda.so"), nil, 0o644)
	}
	return root
}

func TestFindFromLIBTORCH(t *testing.T) {
	root := fakeLibtorch(t, [3]string{"2", "1", "0"}, true, false)
	t.Setenv("LIBTORCH", root)
	inst, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	if inst.Version != "2.1.0" || !inst.CUDA || inst.CXX11ABI || inst.Source != "LIBTORCH" || inst.NeedsStubs() {
		t.Errorf("found %+v", inst)
	}
	if !strings.Contains(cgoFile(inst), "--no-as-needed -ltorch_cuda") || !strings.Contains(cgoFile(inst), "_GLIBCXX_USE_CXX11_ABI=0") {
		t.Errorf("cgo flags for CUDA libtorch:\n%s", cgoFile(inst))
	}

	root = fakeLibtorch(t, [3]string{"2", "11", "0"}, false, true)
	t.Setenv("LIBTORCH", root)
	if inst, err = Find(); err != nil {
		t.Fatal(err)
	}
	if !inst.NeedsStubs() || inst.CUDA || !inst.CXX11ABI {
		t.Errorf("found %+v", inst)
	}

	// Since 2.10 torch/version.h includes the numbers from
	// torch/headeronly/version.h.
	root = fakeLibtorch(t, [3]string{"2", "11", "0"}, true, true)
	api := filepath.Join(root, "include", "torch", "csrc", "api", "include", "torch", "version.h")
	if err := os.WriteFile(api, []byte("#include <torch/headeronly/version.h>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LIBTORCH", root)
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "cannot read the libtorch version") {
		t.Errorf("a version.h without numbers and no headeronly/version.h: %v", err)
	}
	headerOnly := filepath.Join(root, "include", "torch", "headeronly")
	os.MkdirAll(headerOnly, 0o755)
	os.WriteFile(filepath.Join(headerOnly, "version.h"), []byte("#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR 11\n#define TORCH_VERSION_PATCH 0\n"), 0o644)
	if inst, err = Find(); err != nil || inst.Version != "2.11.0" {
		t.Errorf("the 2.10+ layout: %+v, %v", inst, err)
	}

	t.Setenv("LIBTORCH", t.TempDir())
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "LIBTORCH=") {
		t.Errorf("an empty LIBTORCH: %v", err)
	}
}

const cpp = `#include "torch_api.h"

void atg_ok(tensor *out__, tensor self) {
  PROTECT(
    auto outputs__ = torch::abs(*self);
    out__[0] = new torch::Tensor(outputs__);
  )
}

void atg_missing(tensor *out__, tensor self) {
  PROTECT(
    auto outputs__ = torch::_no_such_op(*self);
    out__[0] = new torch::Tensor(outputs__);
  )
}

int at_count(tensor self) {
  PROTECT(return torch::_also_missing(*self);)
  return -1;
}
`

func TestFailingFunctionsAndStubs(t *testing.T) {
	out := "/b/torch_api.cpp: In function ‘void atg_missing(at::Tensor**, tensor)’:\n" +
		"/b/torch_api.cpp:12:29: error: ‘_no_such_op’ is not a member of ‘torch’\n" +
		"/usr/include/c++/12/tuple:1357:25: error: static assertion failed\n" +
		"/b/torch_api.cpp:18:3:   required from here\n"
	failing := FailingFunctions([]byte(cpp), out, "/b/torch_api.cpp")
	if len(failing) != 2 || !failing["atg_missing"] || !failing["at_count"] {
		t.Fatalf("failing = %v, want atg_missing and at_count", failing)
	}
	stubbed := string(StubFunctions([]byte(cpp), failing, func(n string) string { return n + " is not available" }))
	if strings.Contains(stubbed, "_no_such_op") || strings.Contains(stubbed, "_also_missing") {
		t.Errorf("a failing body survived:\n%s", stubbed)
	}
	if !strings.Contains(stubbed, "torch::abs") {
		t.Error("a compiling function was stubbed")
	}
	if !strings.Contains(stubbed, `PROTECT(throw std::runtime_error("atg_missing is not available");)`) ||
		!strings.Contains(stubbed, "int at_count(tensor self) {\n  PROTECT(throw std::runtime_error(\"at_count is not available\");)\n  return {};\n}") {
		t.Errorf("stubs:\n%s", stubbed)
	}
}

// A shortened copy of two wrappers from gotch v0.9.1's ts/tensor-generated.go.
const sampleWrappers = `package ts

// #include "stdlib.h"
import "C"

func(ts *Tensor) Abs_()(err error) { 
  ptr := (*lib.Ctensor)(unsafe.Pointer(C.malloc(0)))
  
    lib.AtgAbs_(ptr, ts.ctensor)
  if err = TorchErr(); err != nil {
    return err
  }
  ts.ctensor = *ptr
  
  return err
} 

func(ts *Tensor) Aminmax(del bool)(retVal0 *Tensor, retVal1 *Tensor, err error) { 
  ctensorPtr0 := (*lib.Ctensor)(unsafe.Pointer(C.malloc(0)))
  ctensorPtr1 := (*lib.Ctensor)(unsafe.Pointer(uintptr(unsafe.Pointer(ctensorPtr0)) + unsafe.Sizeof(ctensorPtr0)))
    lib.AtgAminmax(ctensorPtr0, ts.ctensor)
  retVal0 = newTensor(*ctensorPtr0, "Aminmax_0")
  retVal1 = newTensor(*ctensorPtr1, "Aminmax_1")
  return retVal0, retVal1, err
} 
`

func TestPatchTensorWrappers(t *testing.T) {
	out, err := PatchTensorWrappers([]byte(sampleWrappers))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"  ptr := (*lib.Ctensor)(C.calloc(8, C.size_t(unsafe.Sizeof(uintptr(0)))))\n  defer C.free(unsafe.Pointer(ptr))\n",
		"  ctensorPtr0 := (*lib.Ctensor)(C.calloc(8, C.size_t(unsafe.Sizeof(uintptr(0)))))\n  defer C.free(unsafe.Pointer(ctensorPtr0))\n",
		"  lib.AtFree(ts.ctensor)\n  ts.ctensor = *ptr\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("patched wrappers lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "malloc(0)") {
		t.Errorf("a malloc(0) is left:\n%s", got)
	}
	if _, err := PatchTensorWrappers([]byte("package ts\n")); err == nil || !strings.Contains(err.Error(), "gotch v0.9.1") {
		t.Errorf("unexpected file: error = %v, want one naming the supported gotch", err)
	}
}

func TestPatchTensorBallast(t *testing.T) {
	src := "func newTensor(ctensor lib.Ctensor) *Tensor {\n\tx := new(Tensor)\n\tx.ctensor = ctensor\n\tx.d = new(bigStruct)\n\treturn x\n}\n"
	out, err := PatchTensorBallast([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "new(bigStruct)") || !strings.Contains(string(out), "\tx.ctensor = ctensor\n") {
		t.Errorf("patched newTensor:\n%s", out)
	}
	if _, err := PatchTensorBallast([]byte("package ts\n")); err == nil {
		t.Error("a file without the ballast was accepted")
	}
}

// Generate on a gotch outside the module cache (vendored) patches it in
// place: the overlay names gotch's own files, carries the Go fixes (and an
// unpatched overlay without them), and the output directory gets a go.mod
// of its own so that ./... skips the generated files.
func TestGenerateVendored(t *testing.T) {
	t.Setenv("LIBTORCH", fakeLibtorch(t, [3]string{"2", "1", "0"}, false, true))
	inst, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	gotch, module, out := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "gotch")
	files := map[string]string{
		"libtch/torch_api.cpp":             "#include \"torch_api.h\"\n#include \"torch_api_generated.cpp.h\"\n",
		"libtch/torch_api_generated.cpp.h": "void atg_abs(tensor *out__, tensor self) {}\n",
		"libtch/lib.go":                    "package libtch\n",
		"ts/tensor-generated.go":           sampleWrappers,
		"ts/tensor.go":                     "package ts\n\nfunc newTensor() *Tensor {\n\tx := new(Tensor)\n\tx.d = new(bigStruct)\n\treturn x\n}\n",
	}
	for name, text := range files {
		path := filepath.Join(gotch, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(module, "go.mod"), []byte("module example.com/m\n"), 0o644)
	os.WriteFile(filepath.Join(module, "go.sum"), nil, 0o644)
	o, err := Generate(inst, gotch, module, out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.ModFile != "" || strings.Contains(o.GoFlags(), "-modfile") {
		t.Errorf("a vendored gotch got an alternate go.mod: %+v", o)
	}
	if mod, err := os.ReadFile(filepath.Join(out, "go.mod")); err != nil || !strings.Contains(string(mod), "module kerasgo.invalid/") {
		t.Errorf("output go.mod: %q, %v", mod, err)
	}
	read := func(path string) map[string]string {
		var ov struct{ Replace map[string]string }
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, &ov) != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		return ov.Replace
	}
	full, plain := read(o.File), read(o.UnpatchedFile)
	if len(full) != 6 || len(plain) != 4 {
		t.Fatalf("overlay replaces %d files, unpatched %d; want 6 and 4:\n%v\n%v", len(full), len(plain), full, plain)
	}
	// kerasgo's C++ and its Go wrapper join gotch's libtch in both
	// overlays, the wrapper without the constraint that keeps it out of
	// kerasgo's own build.
	for _, ov := range []map[string]string{full, plain} {
		cpp, err := os.ReadFile(ov[filepath.Join(gotch, "libtch", "kerasgo_ops.cpp")])
		if err != nil || !strings.Contains(string(cpp), "kg_adam_update(") {
			t.Errorf("added kerasgo_ops.cpp: %v", err)
		}
		wrapper, err := os.ReadFile(ov[filepath.Join(gotch, "libtch", "kerasgo_ops.go")])
		if err != nil || !strings.HasPrefix(string(wrapper), "// This file is compiled only as part of gotch's libtch") || strings.Contains(string(wrapper), "go:build") {
			t.Errorf("added kerasgo_ops.go: %v\n%.200s", err, wrapper)
		}
	}
	patched, err := os.ReadFile(full[filepath.Join(gotch, "ts", "tensor.go")])
	if err != nil || strings.Contains(string(patched), "bigStruct") {
		t.Errorf("patched tensor.go: %v\n%s", err, patched)
	}
	if _, ok := plain[filepath.Join(gotch, "ts", "tensor-generated.go")]; ok {
		t.Error("the unpatched overlay patches the wrappers")
	}
}

// PyPI's layout: the NVIDIA wheels' include directories beside torch's,
// all of them once every header c10d's NCCL process group needs is
// there, none while one is missing.
func TestNCCLIncludeDirsInPyPILayout(t *testing.T) {
	t.Setenv("CUDA_HOME", "")
	site := t.TempDir()
	files := map[string]string{
		"cuda_runtime": "cuda_runtime_api.h", "cuda_nvcc": "crt/host_config.h", "cuda_cccl": "nv/target",
		"nccl": "nccl.h", "cublas": "cublas_v2.h",
	}
	for wheel, header := range files {
		path := filepath.Join(site, "nvidia", wheel, "include", header)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := ncclIncludeDirs(filepath.Join(site, "torch"))
	if len(dirs) != len(files) {
		t.Fatalf("include dirs %v, want the %d wheels' include directories", dirs, len(files))
	}
	for _, d := range dirs[:4] { // the headers' own directories come first
		if !strings.HasPrefix(d, filepath.Join(site, "nvidia")) {
			t.Errorf("include dir %s is outside the wheels", d)
		}
	}
	if err := os.Remove(filepath.Join(site, "nvidia", "nccl", "include", "nccl.h")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/usr/include/nccl.h"); err == nil {
		t.Skip("/usr/include/nccl.h exists (libnccl-dev): cannot check the case without NCCL's header")
	}
	if _, err := os.Stat("/usr/local/cuda/include/nccl.h"); err == nil {
		t.Skip("/usr/local/cuda/include/nccl.h exists: cannot check the case without NCCL's header")
	}
	if dirs := ncclIncludeDirs(filepath.Join(site, "torch")); dirs != nil {
		t.Errorf("without nccl.h: include dirs %v, want none", dirs)
	}
}

// jemalloc is linked first (its malloc before glibc's), and its directory
// is searched after libtorch's, so that another libtorch there (Debian's,
// beside Debian's libjemalloc2) cannot shadow the one found.
func TestJemallocFlags(t *testing.T) {
	inst := &Install{LibDir: "/site/torch/lib", Jemalloc: "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}
	got := strings.Join(ldFlags(inst), " ")
	want := "-Wl,--no-as-needed -l:libjemalloc.so.2 -Wl,--as-needed -lstdc++ -L/site/torch/lib -Wl,-rpath,/site/torch/lib -ltorch -ltorch_cpu -lc10 -L/usr/lib/x86_64-linux-gnu"
	if got != want {
		t.Errorf("ldFlags = %s\nwant     %s", got, want)
	}
	inst.Jemalloc = ""
	if got := strings.Join(ldFlags(inst), " "); strings.Contains(got, "jemalloc") {
		t.Errorf("ldFlags without jemalloc = %s", got)
	}
	t.Setenv(JemallocOffVar, "off")
	if p := FindJemalloc(); p != "" {
		t.Errorf("FindJemalloc with %s=off = %q", JemallocOffVar, p)
	}
}
