package libtorchbuild

import (
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
