package libtorchbuild

import (
	"bytes"
	"fmt"
	"regexp"
)

// resultAlloc matches how gotch v0.9.1's generated Go wrappers allocate
// the C array libtorch writes result handles into: malloc(0), never freed,
// although up to seven handles are written into it.
var resultAlloc = regexp.MustCompile(`(?m)^(\s*)(\w+) := \(\*lib\.Ctensor\)\(unsafe\.Pointer\(C\.malloc\(0\)\)\)$`)

// inPlaceSwap matches how the in-place wrappers (Add_, ...) take the
// handle libtorch returns, dropping the old one without freeing it.
var inPlaceSwap = regexp.MustCompile(`(?m)^(\s*)ts\.ctensor = \*ptr$`)

// ballast is how gotch's newTensor gives every tensor a 100 KB Go
// allocation, so that Go's garbage collector runs (and gotch's finalizers
// free C memory) more often.
var ballast = regexp.MustCompile(`(?m)^(\s*)x\.d = new\(bigStruct\)$`)

// maxResults is the most result handles a gotch v0.9.1 wrapper writes.
const maxResults = 8

// PatchTensorWrappers fixes two leaks in gotch's ts/tensor-generated.go
// that otherwise grow a training process's memory with every step:
//   - each wrapper's result array is malloc(0) and never freed (and is
//     too small for the wrappers that return several tensors): it becomes
//     calloc(8, pointer size), freed when the wrapper returns;
//   - each in-place wrapper replaces the tensor's handle with the one
//     libtorch returns without deleting the old handle, which keeps the
//     tensor's storage alive forever: the old handle is now freed (both
//     handles point to the same tensor, so nothing else changes).
//
// It returns an error if the file no longer looks as expected.
func PatchTensorWrappers(src []byte) ([]byte, error) {
	allocs := len(resultAlloc.FindAllIndex(src, -1))
	swaps := len(inPlaceSwap.FindAllIndex(src, -1))
	if allocs == 0 || swaps == 0 || !bytes.Contains(src, []byte(`#include "stdlib.h"`)) {
		return nil, fmt.Errorf("gotch's tensor-generated.go does not have the shape this patch expects (%d result arrays, %d in-place swaps): it supports gotch v0.9.1", allocs, swaps)
	}
	out := resultAlloc.ReplaceAll(src, []byte(fmt.Sprintf(
		"${1}${2} := (*lib.Ctensor)(C.calloc(%d, C.size_t(unsafe.Sizeof(uintptr(0)))))\n${1}defer C.free(unsafe.Pointer(${2}))", maxResults)))
	out = inPlaceSwap.ReplaceAll(out, []byte("${1}lib.AtFree(ts.ctensor)\n${1}ts.ctensor = *ptr"))
	return out, nil
}

// PatchTensorBallast removes the 100 KB zeroed Go allocation gotch's
// ts/tensor.go makes for every tensor. kerasgo frees every tensor
// explicitly, so the ballast only costs time: measured with perf on the
// libtorch MLP step benchmark, 5.7% of the process's CPU time was in
// newTensor, nearly all of it allocating and zeroing the ballast.
func PatchTensorBallast(src []byte) ([]byte, error) {
	if len(ballast.FindAllIndex(src, -1)) != 1 {
		return nil, fmt.Errorf("gotch's tensor.go does not have the shape this patch expects (one ballast allocation in newTensor): it supports gotch v0.9.1")
	}
	return ballast.ReplaceAll(src, []byte("${1}// kerasgo: no 100 KB ballast per tensor (tensors are freed explicitly).")), nil
}

// sourcePatch is one of kerasgo's fixes to a gotch Go source file, applied
// through the overlay.
type sourcePatch struct {
	file  string // relative to gotch's root
	patch func([]byte) ([]byte, error)
}

// sourcePatches fix memory leaks and per-tensor overhead in gotch v0.9.1.
var sourcePatches = []sourcePatch{
	{"ts/tensor-generated.go", PatchTensorWrappers},
	{"ts/tensor.go", PatchTensorBallast},
}
