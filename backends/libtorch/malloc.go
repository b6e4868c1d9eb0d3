//go:build libtorch

package libtorch

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef int (*kg_mallctl_fn)(const char*, void*, size_t*, void*, size_t);

static kg_mallctl_fn kg_mallctl(void) { return (kg_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl"); }

// kg_jemalloc_keep_pages tells jemalloc never to purge freed pages, in
// the arenas it makes from now on and in each it has made (an arena not
// yet initialized refuses, and gets the new default when it is); it
// returns 0, -1 when the process's malloc is not jemalloc, or -2 when
// jemalloc refuses the defaults.
static int kg_jemalloc_keep_pages(void) {
	kg_mallctl_fn mallctl = kg_mallctl();
	if (mallctl == NULL) return -1;
	ssize_t never = -1;
	if (mallctl("arenas.dirty_decay_ms", NULL, NULL, &never, sizeof(never)) != 0 ||
	    mallctl("arenas.muzzy_decay_ms", NULL, NULL, &never, sizeof(never)) != 0) return -2;
	unsigned narenas = 0;
	size_t n = sizeof(narenas);
	if (mallctl("arenas.narenas", &narenas, &n, NULL, 0) != 0) return -2;
	char name[64];
	for (unsigned i = 0; i < narenas; i++) {
		snprintf(name, sizeof(name), "arena.%u.dirty_decay_ms", i);
		mallctl(name, NULL, NULL, &never, sizeof(never));
		snprintf(name, sizeof(name), "arena.%u.muzzy_decay_ms", i);
		mallctl(name, NULL, NULL, &never, sizeof(never));
	}
	return 0;
}

// kg_jemalloc_decay returns jemalloc's arenas.dirty_decay_ms, or -2 when
// the process's malloc is not jemalloc (glibc has no mallctl).
static long kg_jemalloc_decay(void) {
	kg_mallctl_fn mallctl = kg_mallctl();
	if (mallctl == NULL) return -2;
	ssize_t v = 0;
	size_t n = sizeof(v);
	if (mallctl("arenas.dirty_decay_ms", &v, &n, NULL, 0) != 0) return -3;
	return (long)v;
}
*/
import "C"

import (
	"errors"
	"sync"
)

// Malloc names the C allocator libtorch's CPU tensors come from in this
// process: "jemalloc" when `kerasgo libtorch` found Debian's libjemalloc2
// (or another jemalloc) and linked it in, else "glibc" (see
// libtorchbuild.FindJemalloc for why it matters: under a long training run
// glibc's heap grew without bound on PyPI's libtorch).
func Malloc() string {
	if C.kg_jemalloc_decay() != -2 {
		return "jemalloc"
	}
	return "glibc"
}

// keepFreedPages configures jemalloc, when it is the process's malloc,
// never to purge freed pages. By default it returns a block's pages to the
// kernel about 10 s after it is freed, and a training step that allocates
// its tensors afresh then faults them in again: the demo CNN's step on
// libtorch took 200-245 ms instead of 136-148 with glibc; without
// purging, 149 ms. The memory stays the process's, reused by the next
// step, as in glibc's heap.
func keepFreedPages() error {
	if C.kg_jemalloc_keep_pages() == -2 {
		return errors.New("libtorch: jemalloc refused kerasgo's decay settings (arenas.dirty_decay_ms)")
	}
	return nil
}

// keepFreedPagesOnce runs keepFreedPages for the first engine opened.
var keepFreedPagesOnce = sync.OnceValue(keepFreedPages)

// jemallocDecay is jemalloc's arenas.dirty_decay_ms (-1: freed pages are
// never purged), for the tests.
func jemallocDecay() int { return int(C.kg_jemalloc_decay()) }
