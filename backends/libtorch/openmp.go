//go:build libtorch

package libtorch

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef void (*kg_set_threads_fn)(int);
typedef int (*kg_get_threads_fn)(void);

// kg_openblas_threads returns OpenBLAS's thread count, or -1 when no
// OpenBLAS is loaded.
static int kg_openblas_threads(void) {
	kg_get_threads_fn get = (kg_get_threads_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
	return get == NULL ? -1 : get();
}

// kg_openblas_set_threads sets OpenBLAS's thread count; it returns -1
// when no OpenBLAS is loaded.
static int kg_openblas_set_threads(int n) {
	kg_set_threads_fn set = (kg_set_threads_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
	if (set == NULL) return -1;
	set(n);
	return 0;
}

// kg_has_libgomp reports whether GNU OpenMP is loaded.
static int kg_has_libgomp(void) { return dlsym(RTLD_DEFAULT, "GOMP_parallel") != NULL; }
*/
import "C"

import (
	"os"
	"sync"
)

// Threading says how the CPU engine's threads were set up when it first
// opened: whether kerasgo ran OpenBLAS single-threaded beside libgomp's
// spinning threads (see below), or left both as they were.
//
// libgomp, the OpenMP runtime inside libtorch, spin-waits between
// parallel regions unless OMP_WAIT_POLICY=PASSIVE, which it reads once,
// when it loads, before any Go code runs: a library cannot set it for
// itself. With Debian's libtorch, whose matrix products run on OpenBLAS's
// own threads, the spinning threads starve OpenBLAS's: on 2 cores the
// LSTM(64) training step took 4.0x as long as with PASSIVE and the MLP's
// 2.1x. So when the first CPU engine opens with OpenBLAS and libgomp
// loaded and neither OMP_WAIT_POLICY nor OPENBLAS_NUM_THREADS set, the
// engine runs OpenBLAS on the calling thread (openblas_set_num_threads(1)):
// the LSTM(64)'s step is then 1.2x PASSIVE's, the MLP's 1.5x, the CNN's
// about equal (docs/benchmarks.md, "OpenMP"). PASSIVE stays the fastest
// with Debian's libtorch. OpenBLAS is the process's: a program that also
// uses it elsewhere (Gorgonia built with -tags openblas) gets it
// single-threaded too; set OMP_WAIT_POLICY or OPENBLAS_NUM_THREADS to
// choose. The libtorch inside PyPI's PyTorch has no OpenBLAS: nothing
// changes.
func Threading() string {
	switch blasThreads() {
	case blasSingle:
		return "OpenBLAS runs on the calling thread (set by kerasgo: libgomp spins, OMP_WAIT_POLICY is unset; set OMP_WAIT_POLICY=PASSIVE for Debian's libtorch's fastest)"
	case blasNone:
		return "no OpenBLAS beside libgomp: OpenMP as libtorch sets it up"
	}
	return "OpenBLAS and OpenMP as the environment sets them"
}

const (
	blasAsIs = iota
	blasSingle
	blasNone
)

// blasThreads applies the rule above once, when the first CPU engine
// opens, and says what it did.
var blasThreads = sync.OnceValue(func() int {
	if C.kg_has_libgomp() == 0 || C.kg_openblas_threads() < 0 {
		return blasNone
	}
	if os.Getenv("OMP_WAIT_POLICY") != "" || os.Getenv("OPENBLAS_NUM_THREADS") != "" {
		return blasAsIs
	}
	if C.kg_openblas_set_threads(1) != 0 {
		return blasNone
	}
	return blasSingle
})

// openBLASThreads returns OpenBLAS's thread count (-1 without OpenBLAS),
// for the tests.
func openBLASThreads() int { return int(C.kg_openblas_threads()) }
