//go:build !libtorch

package libtorch

import (
	"errors"

	"github.com/kerasgo/kerasgo/keras/backend"
)

func init() {
	backend.Register(Name, func(string) (backend.Backend, error) {
		return nil, errors.New("this program was built without the libtorch engine: run `make libtorch` " +
			"(it finds libtorch and prints the go build flags), then build with -tags libtorch and those flags")
	})
}
