#!/usr/bin/env bash
# The README's commands for a user's own program on the libtorch engine, run
# as a newcomer would: a throwaway module that requires kerasgo (through a
# replace directive pointing at this checkout), a program that trains one
# step, then
#   go mod edit -tool github.com/kerasgo/kerasgo/cmd/kerasgo && go mod tidy
#   (the README's form when go.mod replaces kerasgo with a checkout)
#   go tool kerasgo libtorch -flags
#   go run $flags .
# It also checks that the program built without those flags fails with the
# message that names the command. `make test-user-module` runs it; it needs
# libtorch installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cat > go.mod <<EOF
module example.com/mymodel

go 1.26

require github.com/kerasgo/kerasgo v0.0.0

replace github.com/kerasgo/kerasgo => $repo
EOF
cat > main.go <<'EOF'
// A user's program: trains one step on the engine KERASGO_BACKEND names.
package main

import (
	"context"
	"fmt"
	"log"
	"math"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

func main() {
	model, err := keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 3, Activation: "softmax"})
	if err != nil {
		log.Fatal(err)
	}
	if err := model.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
		log.Fatal(err)
	}
	x := keras.Array{Shape: []int{8, 4}, Data: make([]float32, 32)}
	for i := range x.Data {
		x.Data[i] = float32(i%5) / 5
	}
	y := keras.Array{Shape: []int{8}, Data: []float32{0, 1, 2, 0, 1, 2, 0, 1}}
	h, err := model.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 8})
	if err != nil {
		log.Fatal(err)
	}
	loss := h.Logs["loss"][0]
	if math.IsNaN(loss) || loss <= 0 {
		log.Fatalf("implausible loss %v", loss)
	}
	fmt.Printf("trained one step on %s: loss %.4f\n", model.Backend().Name(), loss)
}
EOF
echo "user-module-test: go mod tidy"
go mod tidy
echo "user-module-test: without the libtorch flags the program must say how to get them"
if KERASGO_BACKEND=libtorch go run . > plain.txt 2>&1; then
  cat plain.txt; echo "user-module-test: FAIL: the program ran on libtorch without -tags libtorch"; exit 1
fi
cat plain.txt
grep -q "go get -tool github.com/kerasgo/kerasgo/cmd/kerasgo" plain.txt && grep -q "go tool kerasgo libtorch" plain.txt || {
  echo "user-module-test: FAIL: the error does not give the commands for a user's module"; exit 1; }
echo "user-module-test: go mod edit -tool github.com/kerasgo/kerasgo/cmd/kerasgo && go mod tidy"
# kerasgo comes from this checkout (the replace above), not from the module
# proxy, so this is the README's form for a replaced kerasgo: go get -tool
# would also ask the proxy whether modules named
# github.com/kerasgo/kerasgo/cmd/kerasgo or .../cmd exist, and the proxy
# refuses (403) for an unpublished module.
go mod edit -tool github.com/kerasgo/kerasgo/cmd/kerasgo
echo "user-module-test: go mod tidy keeps the tool's modules"
go mod tidy
echo "user-module-test: go tool kerasgo libtorch -flags"
flags=$(go tool kerasgo libtorch -flags)
echo "user-module-test: flags: $flags"
KERASGO_BACKEND=libtorch go run $flags . | tee out.txt
grep -q "^trained one step on libtorch" out.txt || {
  echo "user-module-test: FAIL: the program did not train on libtorch"; exit 1; }
echo "user-module-test: a second run of kerasgo libtorch finds its files up to date"
go tool kerasgo libtorch | tee setup2.txt
grep -q "is up to date" setup2.txt
echo "user-module-test: PASS"
