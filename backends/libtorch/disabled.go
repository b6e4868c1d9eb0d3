//go:build !libtorch

package libtorch

import (
	"errors"

	"github.com/kerasgo/kerasgo/keras/backend"
)

func init() {
	backend.Register(Name, func(string) (backend.Backend, error) {
		return nil, errors.New(disabledMessage)
	})
}

// disabledMessage says how to build with the libtorch engine, both in
// kerasgo's repository and in a user's own module.
const disabledMessage = "this program was built without the libtorch engine. " +
	"In your own module (one that requires github.com/kerasgo/kerasgo), run in its directory " +
	"`go get -tool github.com/kerasgo/kerasgo/cmd/kerasgo` once (with kerasgo replaced by a local checkout: `go mod edit -tool github.com/kerasgo/kerasgo/cmd/kerasgo && go mod tidy`), then `go tool kerasgo libtorch`: it finds libtorch, writes ./build/gotch " +
	"and prints the flags; then build with them, e.g. " +
	"`go run $(go tool kerasgo libtorch -flags) .` " +
	"(run it again after changing go.mod or go.sum; the first build compiles libtorch's C++ wrappers for a few minutes). " +
	"In kerasgo's repository, `make libtorch` does the same. No libtorch yet? sudo apt-get install libtorch-dev libopenblas-dev libjemalloc2"

// OnOpThread would run f on the libtorch engine's op thread; in a build
// without the engine it runs nothing and says how to build with it.
func OnOpThread(f func() error) error { return errors.New(disabledMessage) }

// BatchSysmon would put Go's sysmon thread under SCHED_BATCH for the
// libtorch engine; in a build without the engine it does nothing and says
// how to build with it.
func BatchSysmon() (thread int, err error) { return 0, errors.New(disabledMessage) }
