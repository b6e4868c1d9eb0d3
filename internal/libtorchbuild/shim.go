package libtorchbuild

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// shimFiles are kerasgo's additions to gotch's libtch package: C++ that
// runs a composition of libtorch kernels in one cgo call (the libtorch
// engine's fused optimizer updates), and its Go wrapper. They are kept in
// shim/ (the Go file behind a build constraint that keeps it out of
// kerasgo's own packages) and added to libtch by the overlay.
//
//go:embed shim/kerasgo_ops.cpp shim/kerasgo_ops.go
var shimFiles embed.FS

// shimIgnore is the build constraint that keeps shim/kerasgo_ops.go out
// of kerasgo's build; it is removed in the copy added to libtch.
const shimIgnore = "//go:build ignore\n\n"

// writeShims writes the shim files into outDir and returns the overlay
// entries that add them to libtch (gotch's libtch directory).
func writeShims(outDir, libtch string) (map[string]string, error) {
	entries, err := shimFiles.ReadDir("shim")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(outDir, "shim")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	replace := map[string]string{}
	for _, e := range entries {
		code, err := shimFiles.ReadFile("shim/" + e.Name())
		if err != nil {
			return nil, err
		}
		if filepath.Ext(e.Name()) == ".go" {
			if !bytes.HasPrefix(code, []byte(shimIgnore)) {
				return nil, fmt.Errorf("shim/%s must start with %q", e.Name(), shimIgnore)
			}
			code = code[len(shimIgnore):]
		}
		out := filepath.Join(dir, e.Name())
		if err := writeFileAtomic(out, code); err != nil {
			return nil, err
		}
		replace[filepath.Join(libtch, e.Name())] = out
	}
	return replace, nil
}
