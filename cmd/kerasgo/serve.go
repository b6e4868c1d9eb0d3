package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/all" // the engines built in (libtorch with -tags libtorch)
	"github.com/kerasgo/kerasgo/keras/serving"
)

// serve runs `kerasgo serve`: .keras files over HTTP with TensorFlow
// Serving's REST API until SIGTERM or SIGINT, then drains: it stops being
// ready, answers every request it accepted, and exits 0.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: kerasgo serve [flags] [name=]model.keras | name@N=model.keras | name=dir ...

Serves each model at /v1/models/<name>, as TensorFlow Serving's REST API:
  [name=]model.keras  one file, watched: a new file replaces the version serving
                      (name defaults to the file's name without .keras)
  name@N=model.keras  version N of the model name (several may be given)
  name=dir            every version in dir, as TensorFlow Serving's base path:
                      dir/N.keras or dir/N/<one file>.keras for version N
A request naming no version gets the highest; -label name:label=N names one.

flags:`)
		fs.PrintDefaults()
	}
	var o serving.Options
	addr := fs.String("addr", ":8501", "address to listen on (TensorFlow Serving's REST port is 8501)")
	fs.StringVar(&o.Backend, "backend", "", "engine: gorgonia, libtorch, libtorch:cuda (default: $KERASGO_BACKEND, ~/.kerasgo/kerasgo.json, gorgonia)")
	fs.BoolVar(&o.Batching.Disabled, "no-batching", false, "run every request as its own batch")
	fs.IntVar(&o.Batching.MaxBatchSize, "max-batch-size", 32, "most samples in one engine batch")
	fs.DurationVar(&o.Batching.Timeout, "batch-timeout", time.Millisecond, "under load, how long a batch waits for more requests once a worker is free (negative: not at all; a lone request never waits)")
	fs.IntVar(&o.Batching.Workers, "batch-workers", 0, "batches that run at once (default 1 with batching: the engine spreads each over the cores; GOMAXPROCS with -no-batching)")
	fs.IntVar(&o.Batching.MaxQueued, "max-queued", 1024, "requests that may wait for an engine; past it a request is refused with 503")
	fs.Int64Var(&o.MaxBodyBytes, "max-body", 16<<20, "largest request body in bytes (413 past it)")
	fs.Int64Var(&o.MaxInFlightBytes, "max-inflight", 256<<20, "memory the requests in flight may be counted for, in bytes (each for 4 times its body); others wait for room")
	fs.IntVar(&o.MaxInstances, "max-instances", 16384, "most samples in one request (413 past it)")
	fs.DurationVar(&o.RequestTimeout, "timeout", 30*time.Second, "longest a request may take, queueing included (504 past it)")
	fs.BoolVar(&o.AllowNonFinite, "allow-nonfinite", false, "pass NaN and infinite inputs to the model instead of refusing them with 400")
	fs.DurationVar(&o.ReloadInterval, "reload-interval", 2*time.Second, "how often to check the files for a new version (negative: never)")
	fs.DurationVar(&o.BodyTimeout, "body-timeout", 10*time.Second, "longest a request's body may take to arrive (408 past it, and the connection is closed)")
	idle := fs.Duration("idle-timeout", 120*time.Second, "how long an idle keep-alive connection is kept open")
	drain := fs.Duration("drain-delay", 5*time.Second, "on SIGTERM, how long to keep answering after /readyz turns 503 (time for load balancers to stop sending), before the listener closes")
	var labels []string
	fs.Func("label", "a version label, name:label=N (repeat for more): /v1/models/<name>/labels/<label> reaches version N", func(v string) error {
		labels = append(labels, v)
		return nil
	})
	grace := fs.Duration("grace", 30*time.Second, "on SIGTERM, after the drain delay, how long to wait for the requests in flight")
	pprofAddr := fs.String("pprof", "", "also serve Go's profiler (net/http/pprof) on this address, e.g. 127.0.0.1:6060 (off by default: never expose it)")
	fs.Parse(args)
	if fs.NArg() == 0 {
		fs.Usage()
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	o.Logger = log
	srv, err := serving.NewServer(o)
	if err != nil {
		return err
	}
	for _, arg := range fs.Args() {
		if err := addModelArg(srv, arg); err != nil {
			srv.Close()
			return err
		}
	}
	for _, l := range labels {
		if err := addLabel(srv, l); err != nil {
			srv.Close()
			return err
		}
	}
	if *pprofAddr != "" {
		go func() { log.Error("pprof", "err", http.ListenAndServe(*pprofAddr, pprofMux())) }()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: *idle}
	log.Info("listening", "addr", ln.Addr().String(), "api", "http://"+ln.Addr().String()+"/v1/models/<name>")
	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		srv.Close()
		return err
	case <-stop.Done():
	}
	// Readiness goes 503 first; the server keeps answering (each answer
	// closing its connection) through the drain window, so that a request
	// sent before readiness changed is never cut; then the listener
	// closes and the requests in flight are answered.
	srv.Drain()
	log.Info("draining: /readyz answers 503, requests are still answered", "drain-delay", drain.String())
	select {
	case <-time.After(*drain):
	case err := <-served:
		srv.Close()
		return err
	}
	log.Info("shutting down: answering the requests in flight", "grace", grace.String())
	ctx, cancelGrace := context.WithTimeout(context.Background(), *grace)
	defer cancelGrace()
	err = hs.Shutdown(ctx)
	srv.Close()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if err != nil {
		return fmt.Errorf("requests still running after the grace period (%v): %w", *grace, err)
	}
	log.Info("stopped")
	return nil
}

// addModelArg serves one model argument: [name=]file (watched),
// name@N=file (version N), or name=dir (the versions in dir).
func addModelArg(srv *serving.Server, arg string) error {
	name, path, ok := strings.Cut(arg, "=")
	if !ok {
		return srv.AddFile(strings.TrimSuffix(filepath.Base(arg), ".keras"), arg)
	}
	if base, v, versioned := strings.Cut(name, "@"); versioned {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%s: the version after @ must be a positive number", arg)
		}
		return srv.AddVersion(base, n, path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		versions, err := versionFiles(path)
		if err != nil {
			return err
		}
		for _, v := range versions {
			if err := srv.AddVersion(name, v.number, v.path); err != nil {
				return err
			}
		}
		return nil
	}
	return srv.AddFile(name, path)
}

// versionFile is one version of a model in a base directory.
type versionFile struct {
	number int
	path   string
}

// versionFiles lists the versions of a base directory, as TensorFlow
// Serving reads a model's base path: entries named by a positive number,
// each a file N.keras or a directory N holding one .keras file.
func versionFiles(dir string) ([]versionFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []versionFile
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".keras"))
		if err != nil || n < 1 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			files, _ := filepath.Glob(filepath.Join(p, "*.keras"))
			if len(files) != 1 {
				return nil, fmt.Errorf("%s: a version directory must hold one .keras file, it holds %d", p, len(files))
			}
			p = files[0]
		} else if !strings.HasSuffix(e.Name(), ".keras") {
			continue
		}
		out = append(out, versionFile{number: n, path: p})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no versions: give N.keras files or N/ directories (N a positive number), as TensorFlow Serving's base path", dir)
	}
	return out, nil
}

// addLabel sets one -label name:label=N.
func addLabel(srv *serving.Server, arg string) error {
	nameLabel, v, ok := strings.Cut(arg, "=")
	name, label, ok2 := strings.Cut(nameLabel, ":")
	n, err := strconv.Atoi(v)
	if !ok || !ok2 || err != nil {
		return fmt.Errorf("-label %q: write name:label=N, e.g. mnist:stable=2", arg)
	}
	return srv.SetLabel(name, label, n)
}

// pprofMux serves Go's profiler, on an address of its own so that it is
// never exposed beside the API.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
