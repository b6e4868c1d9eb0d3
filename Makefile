# kerasgo: the README's first two commands are `make demo` and `make test`.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.7.0
DEMO_FLAGS  ?=
BENCH_FLAGS ?=
# Flags for the libtorch engine; `make libtorch` generates the files they name.
LIBTORCH_FLAGS = -tags=libtorch -modfile=$(CURDIR)/build/gotch/go.mod -overlay=$(CURDIR)/build/gotch/overlay.json

.PHONY: demo test test-openblas lint lint-libtorch bench bench-go data libtorch doctor

## demo: set up a dataset if needed, then train the demo MLP for one epoch
## (KERASGO_BACKEND=libtorch make demo, or DEMO_FLAGS=-backend=libtorch, builds with the libtorch engine)
demo: data
	@case "$(KERASGO_BACKEND) $(DEMO_FLAGS)" in \
	*libtorch*) $(GO) run ./cmd/kerasgo libtorch >/dev/null && set -x && $(GO) run $(LIBTORCH_FLAGS) ./cmd/demo $(DEMO_FLAGS) ;; \
	*) set -x && $(GO) run ./cmd/demo $(DEMO_FLAGS) ;; \
	esac

## data: make sure a dataset is available (Fashion-MNIST from Debian when offline)
data:
	@scripts/ensure-data.sh

## test: vet, prove the default engine builds without cgo, run every test;
## with libtorch installed, run everything again with the libtorch engine compiled in
test:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test ./...
	@$(GO) run ./cmd/kerasgo libtorch; status=$$?; \
	if [ $$status = 3 ]; then echo "libtorch is not installed: the libtorch engine's tests were skipped (apt-get install libtorch-dev)"; \
	elif [ $$status != 0 ]; then exit $$status; \
	else set -x; $(GO) vet $(LIBTORCH_FLAGS) ./... && $(GO) test $(LIBTORCH_FLAGS) ./...; fi

## test-openblas: the opt-in OpenBLAS build (cgo, libopenblas-dev) passes the engine's tests
test-openblas:
	CGO_ENABLED=1 $(GO) test -tags openblas ./backends/... ./keras/... ./bench/...

## lint: gofmt, go vet and staticcheck must be clean
lint:
	@out=$$(git ls-files '*.go' | xargs gofmt -l); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

## lint-libtorch: staticcheck for the libtorch-tagged files too (a vendored copy; skipped without libtorch)
lint-libtorch:
	STATICCHECK=$(STATICCHECK) scripts/lint-libtorch.sh

## bench: time per training step and peak memory, kerasgo against PyTorch (see docs/benchmarks.md)
bench:
	scripts/bench.sh $(BENCH_FLAGS)

## bench-go: only the Go testing.B benchmarks
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./bench/...

## libtorch: find libtorch and generate build/gotch (overlay + alternate go.mod) for -tags libtorch
libtorch:
	$(GO) run ./cmd/kerasgo libtorch

## doctor: which engines work here, libtorch and CUDA found, and what fixes the rest
doctor:
	@if $(GO) run ./cmd/kerasgo libtorch >/dev/null 2>&1; then $(GO) run $(LIBTORCH_FLAGS) ./cmd/kerasgo doctor; else $(GO) run ./cmd/kerasgo doctor; fi
