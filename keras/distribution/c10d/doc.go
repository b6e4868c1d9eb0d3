// Package c10d is kerasgo's binding to PyTorch's c10d, the collective
// communication library inside libtorch: a TCPStore for the rendezvous
// and a ProcessGroupGloo for allreduce and broadcast, through a small C++
// shim (shim.cpp) with a C ABI. It is built only with the libtorch build
// tag (the Makefile's overlay sets its cgo flags for the libtorch it
// found); without it, Open returns an error that says how to build with
// libtorch. Built against a CUDA libtorch with NCCL's headers, it also
// opens a ProcessGroupNCCL where a GPU is present, through which CUDA
// tensors are summed (Group.NCCL reports it). Importing it registers it
// as keras/distribution's transport:
//
//	import _ "github.com/kerasgo/kerasgo/keras/distribution/c10d"
package c10d
