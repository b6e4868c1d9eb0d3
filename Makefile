# kerasgo: the README's first two commands are `make demo` and `make test`.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.7.0
DEMO_FLAGS  ?=
BENCH_FLAGS ?=

.PHONY: demo test test-openblas lint bench bench-go data libtorch

## demo: set up a dataset if needed, then train the demo MLP for one epoch
demo: data
	$(GO) run ./cmd/demo $(DEMO_FLAGS)

## data: make sure a dataset is available (Fashion-MNIST from Debian when offline)
data:
	@scripts/ensure-data.sh

## test: vet, prove the default engine builds without cgo, run every test
test:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test ./...

## test-openblas: the opt-in OpenBLAS build (cgo, libopenblas-dev) passes the engine's tests
test-openblas:
	CGO_ENABLED=1 $(GO) test -tags openblas ./backends/... ./keras/... ./bench/...

## lint: gofmt, go vet and staticcheck must be clean
lint:
	@out=$$(git ls-files '*.go' | xargs gofmt -l); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

## bench: time per training step and peak memory, kerasgo against PyTorch (see docs/benchmarks.md)
bench:
	scripts/bench.sh $(BENCH_FLAGS)

## bench-go: only the Go testing.B benchmarks
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./bench/...

## libtorch: find libtorch and generate build/gotch (overlay + alternate go.mod) for -tags libtorch
libtorch:
	$(GO) run ./cmd/kerasgo libtorch
