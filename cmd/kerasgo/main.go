// Command kerasgo holds kerasgo's setup tools.
//
//	kerasgo libtorch [-out build/gotch]   find libtorch and generate the gotch build files
//	kerasgo doctor                        report the engines, libtorch and CUDA
//
// `make libtorch` runs it; its output says how to build with the libtorch
// engine. It exits with status 3 when no libtorch is installed.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kerasgo/kerasgo/internal/libtorchbuild"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "libtorch":
		err = setupLibtorch(os.Args[2:])
	case "doctor":
		doctor(os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kerasgo:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kerasgo libtorch [-out dir] | kerasgo doctor")
	os.Exit(2)
}

func setupLibtorch(args []string) error {
	fs := flag.NewFlagSet("libtorch", flag.ExitOnError)
	out := fs.String("out", "build/gotch", "directory for the generated overlay")
	vendored := fs.String("gotch", "", "gotch's source directory, e.g. vendor/github.com/sugarme/gotch (default: the module cache)")
	fs.Parse(args)
	inst, err := libtorchbuild.Find()
	if errors.Is(err, libtorchbuild.ErrNotFound) {
		fmt.Fprintln(os.Stderr, "kerasgo:", err)
		os.Exit(3) // make test skips the libtorch tests on this code
	}
	if err != nil {
		return err
	}
	fmt.Println("found", inst.Describe())
	dir := []byte(*vendored)
	if *vendored == "" {
		// Nothing in the default build imports gotch, so a fresh checkout
		// may not have downloaded it yet.
		if out, err := exec.Command("go", "mod", "download", "github.com/sugarme/gotch").CombinedOutput(); err != nil {
			return fmt.Errorf("downloading gotch (go mod download github.com/sugarme/gotch): %v\n%s", err, out)
		}
		if dir, err = exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/sugarme/gotch").Output(); err != nil || strings.TrimSpace(string(dir)) == "" {
			return fmt.Errorf("gotch's source is not in the module cache (go list -m github.com/sugarme/gotch: %v)", err)
		}
	} else if abs, err := filepath.Abs(*vendored); err == nil {
		dir = []byte(abs)
	}
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("locating kerasgo's module: %v", err)
	}
	gotchDir, moduleRoot := strings.TrimSpace(string(dir)), filepath.Dir(strings.TrimSpace(string(root)))
	if ov, ok := libtorchbuild.Current(inst, gotchDir, moduleRoot, *out); ok {
		fmt.Printf("%s is up to date\nbuild with: go build %s ./...\n", *out, ov.GoFlags())
		return nil
	}
	ov, err := libtorchbuild.Generate(inst, gotchDir, moduleRoot, *out, os.Stdout)
	if err != nil {
		return err
	}
	if len(ov.Stubbed) > 0 {
		fmt.Printf("stubbed %d gotch wrappers that do not exist in libtorch %s (they return an error if called)\n", len(ov.Stubbed), inst.Version)
	}
	fmt.Printf("wrote %s\nbuild with: go build %s ./...\n", ov.File, ov.GoFlags())
	return nil
}
