// Package libtorchbuild finds a libtorch installation and prepares the
// `go build -overlay` that lets gotch v0.9.1 (generated for libtorch 2.1.0)
// build against it, without editing the module cache or copying gotch's
// source into the repository.
//
// The overlay replaces two files of gotch's libtch package:
//
//   - lib.go, whose cgo flags gotch hard-codes for a CUDA libtorch 2.1 in
//     its own directory, with flags for the libtorch that was found (CPU or
//     CUDA, its C++ ABI, an rpath so binaries find it);
//   - torch_api.cpp, with its generated half (torch_api_generated.cpp.h,
//     which a C++ compiler would read from the module cache, out of the
//     overlay's reach) inlined, and, for a libtorch other than 2.1, every
//     wrapper that does not compile replaced by one that reports "not
//     available in this libtorch" through gotch's normal error path
//     (torch_last_err, turned into a Go error by gotch).
package libtorchbuild
