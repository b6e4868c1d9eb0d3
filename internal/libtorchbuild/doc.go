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
//
// It also adds two files of kerasgo's own to libtch (shim/): C++ that runs
// a composition of libtorch kernels in one cgo call (kg_adam_update, the
// libtorch engine's Adam update: through gotch's wrappers the same seven
// kernels took ten cgo calls), and its Go wrapper (lib.KgAdamUpdate).
// They use only ATen operators that libtorch has had since 1.13 and get
// the flags lib.go gets; built so far against Debian's 1.13 (CPU) and the
// 2.9.1 inside PyPI's PyTorch (CUDA), not against the official 2.1.
package libtorchbuild
