//go:build libtorch && cgo

package c10d

// The flags for Debian's libtorch-dev and libgloo-dev. The Makefile's
// overlay (internal/libtorchbuild) replaces this file with the flags of
// the libtorch it found.

// #cgo CXXFLAGS: -std=c++17 -O2 -w -DUSE_C10D_GLOO -I/usr/include/torch/csrc/api/include -D_GLIBCXX_USE_CXX11_ABI=1
// #cgo LDFLAGS: -lstdc++ -ltorch -ltorch_cpu -lc10
import "C"
