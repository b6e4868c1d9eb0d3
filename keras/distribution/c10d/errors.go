package c10d

import "errors"

// ErrNotBuilt is Open's error in a build without libtorch.
var ErrNotBuilt = errors.New("distributed training uses PyTorch's c10d, which this program was built without: install libtorch (sudo apt-get install libtorch-dev libgloo-dev libopenblas-dev libjemalloc2) and build with the libtorch engine (make libtorch, then go build $(build/kerasgo libtorch -flags) ...); see docs/distributed.md")
