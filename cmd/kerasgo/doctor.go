package main

import (
	"fmt"
	"io"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/backends/gorgonia"
	"github.com/kerasgo/kerasgo/internal/libtorchbuild"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// doctor prints which engines this binary has, what libtorch and CUDA the
// machine offers, and for everything unavailable why and what fixes it.
func doctor(w io.Writer) {
	fmt.Fprintln(w, "engines in this binary:")
	for _, name := range backend.Names() {
		be, err := backend.Open(name)
		if err != nil {
			fmt.Fprintf(w, "  %-9s unavailable: %v\n", name, err)
			continue
		}
		detail := be.Capabilities().Device
		if name == gorgonia.Name {
			detail += ", BLAS: " + gorgonia.BLAS
		}
		fmt.Fprintf(w, "  %-9s ok (%s)\n", name, detail)
		be.Close()
	}

	fmt.Fprintln(w, "libtorch on this machine:")
	if inst, err := libtorchbuild.Find(); err != nil {
		fmt.Fprintf(w, "  not found: %v\n", err)
	} else {
		fmt.Fprintf(w, "  %s\n  headers %s, libraries %s\n", inst.Describe(), strings.Join(inst.IncludeDirs, " "), inst.LibDir)
		if inst.Jemalloc == "" {
			fmt.Fprintln(w, "  malloc: glibc's, whose heap a long training run fragments without bound: sudo apt-get install libjemalloc2, then kerasgo libtorch again")
		}
		if inst.NeedsStubs() {
			fmt.Fprintf(w, "  gotch v0.9.1 targets libtorch %s: wrappers missing from %s report \"not available in this libtorch\"\n", libtorchbuild.TargetVersion, inst.Version)
		}
		if missing, ok := inst.DistributedHeaders(); ok {
			fmt.Fprintln(w, "  distributed training (c10d, Gloo): can be built (docs/distributed.md)")
		} else {
			fmt.Fprintf(w, "  distributed training (c10d, Gloo): off: %s\n", missing)
		}
	}

	fmt.Fprintln(w, "CUDA:")
	if _, err := backend.Open("libtorch:cuda"); err != nil {
		fmt.Fprintf(w, "  libtorch:cuda unavailable: %v\n", err)
	} else {
		for i := 0; ; i++ {
			be, err := backend.Open(fmt.Sprintf("libtorch:cuda:%d", i))
			if err != nil {
				break
			}
			fmt.Fprintf(w, "  libtorch:%s ok\n", be.Capabilities().Device)
			be.Close()
		}
	}
	fmt.Fprintln(w, "gorgonia:cuda: not supported yet (see docs/architecture.md)")

	sel, err := backend.Resolve("")
	if err != nil {
		fmt.Fprintf(w, "engine selection: %v\n", err)
		return
	}
	fmt.Fprintf(w, "engine selected by default here: %s (from %s)\n", sel.Spec, sel.Source)
}
