// Command kerasgo holds kerasgo's setup tools.
//
//	kerasgo libtorch [-out build/gotch] [-flags]   find libtorch and generate the gotch build files
//	kerasgo libtorch -check                        only say whether libtorch is installed
//	kerasgo libtorch -check-distributed            only say whether distributed training can be built
//	kerasgo doctor                                 report the engines, libtorch and CUDA
//	kerasgo launch -n N ./prog [args]              start N workers of a data-parallel job (see docs/distributed.md)
//	kerasgo serve [flags] [name=]model.keras ...   serve models with TensorFlow Serving's REST API (see docs/serving.md)
//	kerasgo export [flags] model.keras out.onnx     write the model as ONNX for onnxruntime (see docs/saving.md)
//
// `kerasgo libtorch` works in kerasgo's repository (`make libtorch` runs
// it) and in any module that requires kerasgo:
//
//	go get -tool github.com/kerasgo/kerasgo/cmd/kerasgo   (once)
//	go tool kerasgo libtorch
//	go build $(go tool kerasgo libtorch -flags) .
//
// It writes build files for the module in the current directory (its
// go.mod and go.sum are copied into them) and prints the go build flags;
// with -flags it prints only the flags, on standard output, and its
// progress on standard error. Run it again after changing go.mod or go.sum
// or installing another libtorch: it regenerates the files when they are
// stale and otherwise returns at once.
//
// Exit status: 0 done, 1 failed, 2 bad usage, 3 no libtorch installed
// (scripts run the built binary to see it: `go run` reports every failure
// as status 1).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	case "serve":
		err = serve(os.Args[2:])
	case "export":
		err = export(os.Args[2:])
	case "launch":
		status, lerr := launch(os.Args[2:])
		if lerr != nil {
			fmt.Fprintln(os.Stderr, "kerasgo launch:", lerr)
		}
		os.Exit(status)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kerasgo:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kerasgo libtorch [-out dir] | kerasgo doctor | kerasgo launch -n N ./prog [args] | kerasgo serve [flags] [name=]model.keras ... | kerasgo export [flags] model.keras out.onnx")
	os.Exit(2)
}

// exitNoLibtorch is the exit status that tells scripts no libtorch is
// installed (make test then skips the libtorch engine's tests).
const exitNoLibtorch = 3

// firstBuildNote warns that the first build is slow, so that nobody takes
// the C++ compilation for a hang.
const firstBuildNote = "the first build with these flags compiles gotch's C++ wrappers for libtorch: " +
	"a few minutes on 2 cores, without output; later builds reuse Go's build cache"

func setupLibtorch(args []string) error {
	fs := flag.NewFlagSet("libtorch", flag.ExitOnError)
	out := fs.String("out", "build/gotch", "directory for the generated build files")
	flagsOnly := fs.Bool("flags", false, "print only the go build flags on standard output (progress goes to standard error)")
	check := fs.Bool("check", false, "only say whether libtorch is installed: exit 0 if it is, 3 if not; write nothing")
	checkDist := fs.Bool("check-distributed", false, "only say whether distributed training can be built (libtorch's c10d and Gloo's headers): exit 0 if it can, 3 if not")
	vendored := fs.String("gotch", "", "gotch's source directory, e.g. vendor/github.com/sugarme/gotch (default: the module cache)")
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: usage: kerasgo libtorch [-out dir] [-flags] [-gotch dir]", fs.Args())
	}
	log := io.Writer(os.Stdout)
	if *flagsOnly {
		log = os.Stderr
	}
	inst, err := libtorchbuild.Find()
	if errors.Is(err, libtorchbuild.ErrNotFound) {
		fmt.Fprintln(os.Stderr, "kerasgo:", err)
		os.Exit(exitNoLibtorch)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(log, "found", inst.Describe())
	if *check {
		return nil
	}
	if *checkDist {
		if missing, ok := inst.DistributedHeaders(); !ok {
			fmt.Fprintln(os.Stderr, "kerasgo: distributed training is off:", missing)
			os.Exit(exitNoLibtorch)
		}
		return nil
	}
	dir := []byte(*vendored)
	if *vendored == "" {
		// Nothing in the default build imports gotch, so a fresh checkout
		// may not have downloaded it yet.
		if out, err := exec.Command("go", "mod", "download", "github.com/sugarme/gotch").CombinedOutput(); err != nil {
			return fmt.Errorf("downloading gotch (go mod download github.com/sugarme/gotch): %v\n%s", err, out)
		}
		if dir, err = exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/sugarme/gotch").Output(); err != nil || strings.TrimSpace(string(dir)) == "" {
			return fmt.Errorf("gotch's source is not in the module cache (go list -m github.com/sugarme/gotch: %v): run this in a module that requires github.com/kerasgo/kerasgo", err)
		}
	} else if abs, err := filepath.Abs(*vendored); err == nil {
		dir = []byte(abs)
	}
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(root)) == "" || strings.TrimSpace(string(root)) == os.DevNull {
		return fmt.Errorf("no go.mod here (go env GOMOD: %v): run kerasgo libtorch in your module's directory", err)
	}
	gotchDir, moduleRoot := strings.TrimSpace(string(dir)), filepath.Dir(strings.TrimSpace(string(root)))
	ov, ok := libtorchbuild.Current(inst, gotchDir, moduleRoot, *out)
	if ok {
		fmt.Fprintf(log, "%s is up to date\n", *out)
	} else {
		if ov, err = libtorchbuild.Generate(inst, gotchDir, moduleRoot, *out, log); err != nil {
			return err
		}
		if len(ov.Stubbed) > 0 {
			fmt.Fprintf(log, "stubbed %d gotch wrappers that do not exist in libtorch %s (they return an error if called)\n", len(ov.Stubbed), inst.Version)
		}
		fmt.Fprintf(log, "wrote %s (from %s's go.mod and go.sum: run kerasgo libtorch again after changing them)\n", ov.File, moduleRoot)
	}
	compiled := gotchCompiled(ov)
	if *flagsOnly {
		if !compiled {
			fmt.Fprintln(os.Stderr, "kerasgo:", firstBuildNote)
		}
		fmt.Println(ov.GoFlags())
		return nil
	}
	fmt.Printf("build with: go build %s ./...\n", ov.GoFlags())
	if !compiled {
		fmt.Printf("note: %s\n", firstBuildNote)
	}
	return nil
}

// gotchCompiled reports whether Go's build cache holds gotch's C++
// wrappers built with ov's flags (go list's Stale is false), so that the
// first-build note is said only before the build that needs it. Anything
// that stops the check counts as not compiled: the note is then said.
func gotchCompiled(ov *libtorchbuild.Overlay) bool {
	args := append([]string{"list"}, strings.Fields(ov.GoFlags())...)
	args = append(args, "-f", "{{.Stale}}", "github.com/sugarme/gotch/libtch")
	out, err := exec.Command("go", args...).Output()
	return err == nil && strings.TrimSpace(string(out)) == "false"
}
