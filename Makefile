# kerasgo: the README's first two commands are `make demo` and `make test`.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.7.0
DEMO_FLAGS  ?=
BENCH_FLAGS ?=
# go test stops a package's test binary after 10 minutes by default; the
# keras package's tests, on both engines beside Python Keras, take 6 to 8
# on a 2-core machine with nothing cached, so the limit is raised to keep a
# slow machine from failing them (it still stops a test that hangs).
TEST_TIMEOUT ?= 25m
# Flags for the libtorch engine; `make libtorch` generates the files they name.
LIBTORCH_FLAGS = -tags=libtorch -modfile=$(CURDIR)/build/gotch/go.mod -overlay=$(CURDIR)/build/gotch/overlay.json
# The setup tool is built and run as a binary, never through `go run`: go
# run reports any failure as its own exit status 1, which would hide the
# tool's status 3 ("no libtorch installed").
KERASGO = build/kerasgo
LIBTORCH_SKIPPED = echo "make test: libtorch is not installed, so the libtorch engine's tests were SKIPPED (the pure-Go engine was tested)."; \
	echo "make test: to test the libtorch engine too: sudo apt-get install libtorch-dev libopenblas-dev libjemalloc2, then make test again."
# Says, only when Go's build cache lacks gotch's C++ wrappers built with
# the libtorch flags, that the next build compiles them (minutes, silent).
FIRST_LIBTORCH_BUILD = [ "$$($(GO) list $(LIBTORCH_FLAGS) -f '{{.Stale}}' github.com/sugarme/gotch/libtch 2>/dev/null)" = false ] || echo "note: the first build with libtorch compiles gotch's C++ wrappers: a few minutes on 2 cores, without output."

.PHONY: demo demo-distributed demo-note test test-keras test-race test-race-libtorch test-applications test-openblas test-user-module fuzz lint lint-libtorch bench bench-pairs bench-serving serving-env torch-env bench-allreduce bench-go data libtorch keras-env golden doctor cuda-build $(KERASGO)

## build/kerasgo: the setup tool (cheap to rebuild: Go's build cache)
$(KERASGO):
	@$(GO) build -o $@ ./cmd/kerasgo

## demo: set up a dataset if needed, then train the demo MLP for one epoch
## (KERASGO_BACKEND=libtorch make demo, or DEMO_FLAGS=-backend=libtorch, builds with the libtorch engine)
demo: demo-note data $(KERASGO)
	@case "$(KERASGO_BACKEND) $(DEMO_FLAGS)" in \
	*libtorch*) $(KERASGO) libtorch >/dev/null || exit $$?; $(FIRST_LIBTORCH_BUILD); set -x; $(GO) run $(LIBTORCH_FLAGS) ./cmd/demo $(DEMO_FLAGS) ;; \
	*) set -x; $(GO) run ./cmd/demo $(DEMO_FLAGS) ;; \
	esac

# said before anything is compiled, so that a first run is not taken for a hang
demo-note:
	@echo "make demo: the first run compiles kerasgo and its dependencies (about a minute), then trains"

## data: make sure a dataset is available (Fashion-MNIST from Debian when offline)
data:
	@scripts/ensure-data.sh

## test: vet, prove the default engine builds without cgo, run every test;
## with libtorch installed, run every test again with the libtorch engine compiled in,
## on that engine alone (the pure-Go engine's subtests ran in the first pass), then
## the tests that compare the two engines
test: export KERASGO_KERAS_TESTS = skip
test: $(KERASGO)
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test -timeout $(TEST_TIMEOUT) ./...
	@$(MAKE) --no-print-directory test-race
	@$(KERASGO) libtorch; status=$$?; \
	if [ $$status = 3 ]; then $(LIBTORCH_SKIPPED); \
	elif [ $$status != 0 ]; then exit $$status; \
	else set -x; $(GO) vet $(LIBTORCH_FLAGS) ./... && \
		KERASGO_TEST_BACKENDS=libtorch $(GO) test -timeout $(TEST_TIMEOUT) $(LIBTORCH_FLAGS) ./... && \
		$(GO) test -timeout $(TEST_TIMEOUT) $(LIBTORCH_FLAGS) -run '$(CROSS_ENGINE_TESTS)' ./keras/ || exit 1; set +x; \
	$(MAKE) --no-print-directory test-race-libtorch || exit 1; \
	$(KERASGO) libtorch -check-distributed >/dev/null || echo "make test: so distributed training's tests (keras/distribution/...) were SKIPPED: sudo apt-get install libgloo-dev, then make test again."; fi
	@[ "$$(id -u)" = 0 ] && command -v ip >/dev/null || echo "make test: the several-machine tests (jobs across network namespaces, internal/netns) were SKIPPED: they need root and iproute2 (sudo make test, as CI runs it)."
	@echo "make test: the checks against Python Keras (golden values current, Keras opening kerasgo's files, training parity, ...) were left to make test-keras (make keras-env first; CI runs both)."

# test-keras's limit per package: the keras package's binary runs both
# engines' Keras checks, about 24 minutes on 2 cores
KERAS_TESTS_TIMEOUT ?= 60m
## test-keras: the checks against Python Keras that make test skips (they
## run Keras and JAX: the keras package's alone, 12 minutes per engine on 2 cores): the tests of
## every package that uses internal/kerasref, on the pure-Go engine; with
## libtorch installed, one run of the libtorch build on both engines instead,
## so that the checks that do not depend on the engine (golden values
## current: the ops' alone regenerate for 6 minutes) run once; needs make keras-env
test-keras: keras-env $(KERASGO)
	@$(KERASGO) libtorch >/dev/null 2>&1; status=$$?; \
	if [ $$status = 3 ]; then set -x; $(GO) test -timeout $(TEST_TIMEOUT) $$(scripts/keras-tests.sh) || exit 1; set +x; $(LIBTORCH_SKIPPED); \
	elif [ $$status != 0 ]; then exit $$status; \
	else set -x; KERASGO_TEST_BACKENDS=gorgonia,libtorch $(GO) test -timeout $(KERAS_TESTS_TIMEOUT) $(LIBTORCH_FLAGS) $$(scripts/keras-tests.sh); fi

# The tests that compare the engines with each other (twoEngines in
# keras/crossengine_test.go): make test's libtorch pass runs them on both.
CROSS_ENGINE_TESTS = CrossEngine|SharedBaseAcrossEngines

## test-race: a Model's concurrency contract (TestConcurrent*, shared
## variables), the model server and the kernels' parallel loops under the race detector on the pure-Go engine; -race needs
## cgo and a C compiler, so it is skipped with a message without one
RACE_TESTS = Concurrent|FitWhileFitting|TransferLearning|LoadedBase|SharedBase|PredictWithoutCompile|Batches|GeneratorSteps|DatasetShards|AdaptNormalizationOverBatches|FitOnImageDataset|FitOnTextDataset|OutsideModel|StepMovesATargetNetwork|StepTrainsAnOutsideModel
test-race:
	@if command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1; then \
		set -x; CGO_ENABLED=1 $(GO) test -timeout $(TEST_TIMEOUT) -race -run '$(RACE_TESTS)' ./keras/ ./keras/utils/ && CGO_ENABLED=1 $(GO) test -race ./keras/serving/ ./internal/parallel/; \
	else echo "make test: no C compiler, so the race-detector run of the concurrency tests was SKIPPED: sudo apt-get install gcc, then make test again."; fi

## test-race-libtorch: the concurrency tests under the race detector on the
## libtorch engine too (make test runs it where libtorch is installed; the
## first run compiles gotch's C++ wrappers again for -race: minutes)
test-race-libtorch:
	@[ "$$($(GO) list -race $(LIBTORCH_FLAGS) -f '{{.Stale}}' github.com/sugarme/gotch/libtch 2>/dev/null)" = false ] || echo "note: the first -race build with libtorch compiles gotch's C++ wrappers again: a few minutes on 2 cores, without output."
	CGO_ENABLED=1 $(GO) test -timeout $(TEST_TIMEOUT) -race $(LIBTORCH_FLAGS) -run '$(RACE_TESTS)' ./keras/ ./keras/utils/

## demo-distributed: the demo trained data parallel by 2 processes (kerasgo launch); as root, also across 2 test machines on both engines; needs libtorch and libgloo-dev
demo-distributed: data $(KERASGO)
	@$(KERASGO) libtorch -check-distributed || { echo "make demo-distributed: needs libtorch and Gloo's headers: sudo apt-get install libtorch-dev libgloo-dev libopenblas-dev libjemalloc2"; exit 1; }
	$(KERASGO) libtorch >/dev/null
	$(GO) build $(LIBTORCH_FLAGS) -o build/demo ./cmd/demo
	$(KERASGO) launch -n 2 build/demo -epochs 1 -verbose 2 $(DEMO_FLAGS) | tee build/demo-distributed.log
	@test "$$(grep -c '^Test accuracy:' build/demo-distributed.log)" = 1 || { echo "make demo-distributed: want one Test accuracy line, from rank 0"; exit 1; }
	@# the two test machines share these cores: one thread each, as launch -n 2 gives
	@if [ "$$(id -u)" = 0 ] && command -v ip >/dev/null; then \
		$(GO) build -o build/machines ./bench/machines || exit 1; \
		for engine in gorgonia libtorch; do \
			echo "+ across 2 test machines (network namespaces), $$engine: kerasgo launch -n 1 -nnodes 2 -node-rank N -master-addr 192.168.77.1 build/demo"; \
			OMP_NUM_THREADS=1 build/machines -n 2 -procs 1 -kerasgo $(KERASGO) -- build/demo -epochs 1 -verbose 2 -backend $$engine $(DEMO_FLAGS) | tee build/demo-machines.log || exit 1; \
			test "$$(grep -c '^Test accuracy:' build/demo-machines.log)" = 1 || { echo "make demo-distributed: want one Test accuracy line from rank 0 across machines"; exit 1; }; \
		done; \
	else echo "make demo-distributed: the run across 2 test machines was SKIPPED: it builds network namespaces, which needs root and iproute2"; fi

## test-user-module: the README's commands for a program outside this repository
## (a throwaway module requiring kerasgo) build and train on libtorch; skipped without libtorch
test-user-module: $(KERASGO)
	@$(KERASGO) libtorch -check >/dev/null; status=$$?; \
	if [ $$status = 3 ]; then echo "make test-user-module: libtorch is not installed: SKIPPED (sudo apt-get install libtorch-dev libopenblas-dev libjemalloc2)"; \
	elif [ $$status != 0 ]; then exit $$status; \
	else $(FIRST_LIBTORCH_BUILD); set -x; scripts/user-module-test.sh; fi

## fuzz: fuzz every file reader (HDF5, .keras archives, legacy .h5 models, safetensors, IDX) for FUZZTIME each
## (a duration such as 30s, or a count such as 20000x, which CI uses: see .ci/run)
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME) ./internal/h5/
	$(GO) test -run '^$$' -fuzz '^FuzzOpenKeras$$' -fuzztime $(FUZZTIME) ./keras/saving/
	$(GO) test -run '^$$' -fuzz '^FuzzLoadModelH5$$' -fuzztime $(FUZZTIME) ./keras/
	$(GO) test -run '^$$' -fuzz '^FuzzSafetensors$$' -fuzztime $(FUZZTIME) ./keras/saving/
	$(GO) test -run '^$$' -fuzz '^FuzzParsePredictRequest$$' -fuzztime $(FUZZTIME) ./keras/serving/
	$(GO) test -run '^$$' -fuzz '^FuzzParseJSON$$' -fuzztime $(FUZZTIME) ./keras/serving/
	@for f in $$($(GO) test -list '^Fuzz' ./datasets/mnist/ | grep '^Fuzz'); do \
		set -x; $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) ./datasets/mnist/ || exit 1; set +x; done

## test-applications: every keras.applications network's Keras-written weight
## files (.weights.h5 and the legacy .h5, with and without the top) predict as
## Keras does, on every engine installed; make test checks one network of each family but NASNet
## (the others' files take gigabytes and tens of minutes); needs make keras-env.
## With libtorch installed, the libtorch build's tests cover both engines.
test-applications: $(KERASGO)
	@if $(KERASGO) libtorch >/dev/null 2>&1; then set -x; \
		KERASGO_TEST_ALL_APPLICATIONS=1 $(GO) test -timeout 120m $(LIBTORCH_FLAGS) -run 'Keras.*Predict|ExportONNX' ./keras/applications/; \
	else echo "make test-applications: libtorch is not installed, so only the pure-Go engine is checked"; set -x; \
		KERASGO_TEST_ALL_APPLICATIONS=1 $(GO) test -timeout 120m -run 'Keras.*Predict|ExportONNX' ./keras/applications/; fi

## test-openblas: the opt-in OpenBLAS build (cgo, libopenblas-dev) passes the engine's tests,
## every layer's, loss's, metric's, optimizer's and op's, and trains as Keras does
## (TestKerasTrainingParity); the tag changes only the GEMMs under Gorgonia, so the
## keras package's other tests and the applications' (20 minutes on 2 cores) are
## not run again with it; nor are those packages' checks against Python Keras
## (golden values current), which no GEMM changes (make test-keras runs them)
OPENBLAS_PACKAGES = ./backends/... ./bench/... ./keras/layers/... ./keras/losses/... ./keras/metrics/... ./keras/optimizers/... ./keras/ops/...
test-openblas:
	KERASGO_KERAS_TESTS=skip CGO_ENABLED=1 $(GO) test -timeout $(TEST_TIMEOUT) -tags openblas $(OPENBLAS_PACKAGES)
	CGO_ENABLED=1 $(GO) test -timeout $(TEST_TIMEOUT) -tags openblas -run 'TestKerasTrainingParity' ./keras/

## lint: gofmt, go vet and staticcheck must be clean
lint:
	@out=$$(git ls-files '*.go' | xargs gofmt -l); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

## lint-libtorch: staticcheck for the libtorch-tagged files too (a vendored copy; skipped without libtorch)
lint-libtorch:
	STATICCHECK=$(STATICCHECK) scripts/lint-libtorch.sh

## keras-env: a pinned Keras 3 on JAX (CPU) in build/keras-env, with
## TensorFlow (CPU) for Keras's string layers: the reference the Keras
## tests compare kerasgo with (they skip without it),
## and the older Keras 3 releases whose files they load (versions/)
KERAS_ENV = build/keras-env
keras-env: $(KERAS_ENV)/.installed
$(KERAS_ENV)/.installed: scripts/keras-requirements.txt scripts/keras-versions.txt
	python3 -m venv $(KERAS_ENV)
	$(KERAS_ENV)/bin/pip install -q --disable-pip-version-check -r scripts/keras-requirements.txt
	for v in $$(grep -v '^#' scripts/keras-versions.txt); do \
		test -d $(KERAS_ENV)/versions/$$v || $(KERAS_ENV)/bin/pip install -q --disable-pip-version-check --no-deps --target $(KERAS_ENV)/versions/$$v keras==$$v || exit 1; \
	done
	cat scripts/keras-requirements.txt scripts/keras-versions.txt > $@

## golden: regenerate the layer, loss and metric golden files: PyTorch's
## values (Debian's python3-torch), then Keras's own (needs make keras-env)
golden: keras-env
	/usr/bin/python3 scripts/golden-layers.py
	/usr/bin/python3 scripts/golden-losses.py
	/usr/bin/python3 scripts/golden-metrics.py
	KERAS_BACKEND=jax JAX_PLATFORMS=cpu $(KERAS_ENV)/bin/python scripts/golden-keras.py

## bench: time per training step and peak memory, kerasgo against PyTorch (see docs/benchmarks.md)
bench:
	scripts/bench.sh $(BENCH_FLAGS)

## bench-pairs: kerasgo on PyPI's libtorch against PyTorch 2 eager for one
## model, two long-lived processes timed in alternating chunks of steps,
## with a bootstrap interval for the ratio (make torch-env first)
bench-pairs:
	scripts/bench-pairs.sh $(BENCH_PAIRS_FLAGS)

## torch-env: PyTorch 2 from PyPI in build/torch-env, which make bench then
## times beside Debian's PyTorch 1.13 (not needed by make test)
TORCH_ENV = build/torch-env
torch-env: $(TORCH_ENV)/.installed
$(TORCH_ENV)/.installed: scripts/torch-requirements.txt
	scripts/need-space.sh 12 build "make torch-env (PyPI's CUDA torch, about 7 GB installed)"
	scripts/need-space.sh 4 $${TMPDIR:-/tmp} "make torch-env (pip stages the wheels in TMPDIR)"
	python3 -m venv $(TORCH_ENV)
	$(TORCH_ENV)/bin/pip install -q --disable-pip-version-check -r scripts/torch-requirements.txt
	cp scripts/torch-requirements.txt $@

## cuda-build: compile and link, without running, the libtorch engine
## (libtorch:cuda) and c10d's NCCL process group against the CUDA libtorch
## inside PyPI's torch (make torch-env; its build files in build/gotch-pypi),
## then check that the NCCL path was compiled in. CI runs it; running them
## needs a GPU (docs/distributed.md says what was run where).
PYPI_LIBTORCH_FLAGS = -tags=libtorch -modfile=$(CURDIR)/build/gotch-pypi/go.mod -overlay=$(CURDIR)/build/gotch-pypi/overlay.json
cuda-build: torch-env $(KERASGO)
	LIBTORCH=$$(ls -d $(CURDIR)/$(TORCH_ENV)/lib/python3*/site-packages/torch | head -1) $(KERASGO) libtorch -out build/gotch-pypi
	CGO_ENABLED=1 $(GO) test $(PYPI_LIBTORCH_FLAGS) -c -o build/cuda-bin/ ./backends/libtorch ./keras/distribution/c10d
	KERASGO_EXPECT_NCCL=1 build/cuda-bin/c10d.test -test.run '^TestNCCLCompiled$$' -test.v

## bench-serving: kerasgo serve under load (1, 16, 64 connections), with and without
## dynamic batching, beside a Python Keras server (make serving-env); see docs/serving.md
bench-serving:
	scripts/bench-serving.sh $(BENCH_SERVING_FLAGS)

## serving-env: Keras 3 on JAX behind FastAPI in build/serving-env, the
## Python server bench-serving compares with (not needed by make test)
SERVING_ENV = build/serving-env
serving-env: $(SERVING_ENV)/.installed
$(SERVING_ENV)/.installed: scripts/keras-requirements.txt scripts/serving-requirements.txt
	python3 -m venv $(SERVING_ENV)
	$(SERVING_ENV)/bin/pip install -q --disable-pip-version-check -r scripts/keras-requirements.txt -r scripts/serving-requirements.txt
	cat scripts/keras-requirements.txt scripts/serving-requirements.txt > $@

## bench-allreduce: allreduce across 2 local processes, kerasgo against torch.distributed (Gloo), and its cost in an MLP step; as root, also across 2 test machines (network namespaces)
bench-allreduce:
	scripts/bench-allreduce.sh $(BENCH_ALLREDUCE_FLAGS)

## bench-go: only the Go testing.B benchmarks
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./bench/...

## libtorch: find libtorch and generate build/gotch (overlay + alternate go.mod) for -tags libtorch
libtorch: $(KERASGO)
	$(KERASGO) libtorch

## doctor: which engines work here, libtorch and CUDA found, and what fixes the rest
doctor: $(KERASGO)
	@if $(KERASGO) libtorch >/dev/null 2>&1; then $(FIRST_LIBTORCH_BUILD); $(GO) run $(LIBTORCH_FLAGS) ./cmd/kerasgo doctor; else $(KERASGO) doctor; fi
