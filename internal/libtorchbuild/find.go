package libtorchbuild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Install is a libtorch found on this machine.
type Install struct {
	Source      string   // "LIBTORCH", "debian" or "python"
	Root        string   // where it was found
	IncludeDirs []string // for the C++ compiler
	LibDir      string   // holds libtorch.so
	Version     string   // e.g. "1.13.1"
	CUDA        bool     // libtorch_cuda.so is present
	CXX11ABI    bool     // built with _GLIBCXX_USE_CXX11_ABI=1
	// NCCLIncludeDirs hold the CUDA runtime's and NCCL's headers, which
	// c10d's NCCL process group compiles against, when CUDA is true and
	// both were found (see ncclIncludeDirs); else nil.
	NCCLIncludeDirs []string
	// Jemalloc is jemalloc's shared library, linked into every libtorch
	// build as the process's malloc when found (FindJemalloc); "" for
	// glibc's.
	Jemalloc string
}

// TargetVersion is the libtorch gotch v0.9.1 was generated for.
const TargetVersion = "2.1.0"

// ErrNotFound is returned when no libtorch is installed.
var ErrNotFound = errors.New("no libtorch found")

// Find looks for libtorch: the directory in $LIBTORCH (the official
// libtorch layout, include/ and lib/), else Debian's libtorch-dev, else the
// libtorch inside a Python torch install (python3 on PATH, then
// /usr/bin/python3).
func Find() (*Install, error) {
	if root := os.Getenv("LIBTORCH"); root != "" {
		inst, err := fromLayout("LIBTORCH", root, filepath.Join(root, "include"), filepath.Join(root, "lib"))
		if err != nil {
			return nil, fmt.Errorf("LIBTORCH=%s: %w", root, err)
		}
		return inst, nil
	}
	if inst, err := fromLayout("debian", "/usr", "/usr/include", "/usr/lib/x86_64-linux-gnu"); err == nil {
		return inst, nil
	}
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-c", "import torch, os; print(os.path.dirname(torch.__file__))").Output()
		if err != nil {
			continue
		}
		root := strings.TrimSpace(string(out))
		if inst, err := fromLayout("python", root, filepath.Join(root, "include"), filepath.Join(root, "lib")); err == nil {
			return inst, nil
		}
	}
	return nil, fmt.Errorf("%w: install Debian's libtorch-dev (apt-get install libtorch-dev libopenblas-dev libjemalloc2), "+
		"or set LIBTORCH to an unpacked official libtorch, or install PyTorch for python3", ErrNotFound)
}

var versionRE = regexp.MustCompile(`#define TORCH_VERSION_(MAJOR|MINOR|PATCH) (\d+)`)

func fromLayout(source, root, include, lib string) (*Install, error) {
	api := filepath.Join(include, "torch", "csrc", "api", "include")
	data, err := os.ReadFile(filepath.Join(api, "torch", "version.h"))
	if err != nil {
		return nil, fmt.Errorf("no libtorch headers under %s: %w", include, err)
	}
	parts := map[string]string{}
	for _, m := range versionRE.FindAllStringSubmatch(string(data), -1) {
		parts[m[1]] = m[2]
	}
	if len(parts) != 3 {
		// Since libtorch 2.10 torch/version.h includes the numbers from
		// torch/headeronly/version.h.
		if data, err := os.ReadFile(filepath.Join(include, "torch", "headeronly", "version.h")); err == nil {
			for _, m := range versionRE.FindAllStringSubmatch(string(data), -1) {
				parts[m[1]] = m[2]
			}
		}
	}
	if len(parts) != 3 {
		return nil, fmt.Errorf("cannot read the libtorch version from %s", filepath.Join(api, "torch", "version.h"))
	}
	c10, err := os.ReadFile(filepath.Join(lib, "libc10.so"))
	if err != nil {
		return nil, fmt.Errorf("no libtorch libraries in %s: %w", lib, err)
	}
	if _, err := os.Stat(filepath.Join(lib, "libtorch_cpu.so")); err != nil {
		return nil, fmt.Errorf("no libtorch_cpu.so in %s", lib)
	}
	_, cudaErr := os.Stat(filepath.Join(lib, "libtorch_cuda.so"))
	includes := []string{include, api}
	if include == "/usr/include" { // a system directory: naming it with -I breaks libstdc++'s #include_next
		includes = []string{api}
	}
	cuda := cudaErr == nil
	var nccl []string
	if cuda {
		nccl = ncclIncludeDirs(root)
	}
	return &Install{
		Jemalloc:        FindJemalloc(),
		NCCLIncludeDirs: nccl,
		Source:          source, Root: root, IncludeDirs: includes, LibDir: lib,
		Version: parts["MAJOR"] + "." + parts["MINOR"] + "." + parts["PATCH"],
		CUDA:    cuda,
		// Libraries built with the C++11 ABI mangle std::string as
		// std::__cxx11::basic_string.
		CXX11ABI: bytes.Contains(c10, []byte("St7__cxx11")),
	}, nil
}

// JemallocOffVar, set to "off", keeps glibc's malloc in libtorch builds.
const JemallocOffVar = "KERASGO_JEMALLOC"

// jemallocGlobs are where Debian's libjemalloc2 (and other distributions)
// put jemalloc's shared library.
var jemallocGlobs = []string{"/usr/lib/*-linux-gnu/libjemalloc.so.2", "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2"}

// FindJemalloc returns the path of jemalloc's shared library, or "" when
// there is none or KERASGO_JEMALLOC=off.
//
// Why: libtorch allocates every CPU tensor with malloc, and kerasgo's
// training step allocates more short-lived tensors than PyTorch's
// in-place loop, interleaved with small handles that outlive the step. In
// glibc's heap that pattern fragments without bound: the demo MLP's step
// on libtorch held 84 MB of live memory but grew the heap to 1.6 GB
// within 400 steps (8.7 GB of RSS after 3,000). jemalloc's size classes
// reuse the freed blocks; with it the same run stays flat.
func FindJemalloc() string {
	if os.Getenv(JemallocOffVar) == "off" {
		return ""
	}
	for _, g := range jemallocGlobs {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// ncclHeaders are what c10d's ProcessGroupNCCL.hpp includes, directly or
// through ATen's CUDA headers, from outside libtorch: the CUDA runtime's,
// the compiler's (crt/), CCCL's (nv/) and NCCL's.
var ncclHeaders = []string{"cuda_runtime_api.h", "crt/host_config.h", "nv/target", "nccl.h"}

// ncclIncludeDirs finds the headers c10d's NCCL process group needs
// beside a CUDA libtorch (ncclHeaders). PyPI's torch wheel brings the
// runtime's and NCCL's as packages in site-packages/nvidia/*/include,
// beside the torch directory (root), and the rest come from
// nvidia-cuda-nvcc-cu12 and nvidia-cuda-cccl-cu12 (make torch-env
// installs both); a CUDA toolkit has them in $CUDA_HOME/include or
// /usr/local/cuda/include, Debian's libnccl-dev in /usr/include. It
// returns nil unless every header is found.
func ncclIncludeDirs(root string) []string {
	candidates, _ := filepath.Glob(filepath.Join(filepath.Dir(root), "nvidia", "*", "include"))
	if home := os.Getenv("CUDA_HOME"); home != "" {
		candidates = append(candidates, filepath.Join(home, "include"))
	}
	candidates = append(candidates, "/usr/local/cuda/include", "/usr/include")
	var dirs []string
	for _, header := range ncclHeaders {
		found := ""
		for _, d := range candidates {
			if _, err := os.Stat(filepath.Join(d, header)); err == nil {
				found = d
				break
			}
		}
		if found == "" {
			return nil
		}
		if found == "/usr/include" { // a system directory: naming it with -I breaks #include_next
			continue
		}
		if !slices.Contains(dirs, found) {
			dirs = append(dirs, found)
		}
	}
	// The wheels' other headers (cuBLAS, cuSPARSE, cuSOLVER, ...), which
	// ATen's CUDA headers include too.
	for _, d := range candidates {
		if strings.Contains(d, string(filepath.Separator)+"nvidia"+string(filepath.Separator)) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// DistributedHeaders reports whether the headers distributed training
// compiles against are here: libtorch's c10d (ProcessGroupGloo.hpp) and
// Gloo's (Debian's libgloo-dev); when one is missing, the name of the
// file and of the package to install.
func (i *Install) DistributedHeaders() (missing string, ok bool) {
	dirs := append(append([]string(nil), i.IncludeDirs...), filepath.Join(i.Root, "include"), "/usr/include", "/usr/local/include")
	for _, h := range []struct{ file, fix string }{
		{"torch/csrc/distributed/c10d/ProcessGroupGloo.hpp", "a libtorch with its distributed headers"},
		{"gloo/algorithm.h", "Gloo's headers: sudo apt-get install libgloo-dev"},
	} {
		found := false
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, h.file)); err == nil {
				found = true
				break
			}
		}
		if !found {
			return h.file + " not found (" + h.fix + ")", false
		}
	}
	return "", true
}

// NeedsStubs reports whether this libtorch differs from the one gotch was
// generated for, so that some wrappers may not compile.
func (i *Install) NeedsStubs() bool {
	return majorMinor(i.Version) != majorMinor(TargetVersion)
}

// majorMinor returns "2.1" for "2.1.0" (and "2.11" for "2.11.0").
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// Describe is a one-line summary for people.
func (i *Install) Describe() string {
	dev := "CPU"
	if i.CUDA {
		dev = "CUDA"
	}
	alloc := "glibc's malloc"
	if i.Jemalloc != "" {
		alloc = "jemalloc"
	}
	return fmt.Sprintf("libtorch %s (%s, from %s at %s; %s)", i.Version, dev, i.Source, i.Root, alloc)
}
