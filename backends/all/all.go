// Package all registers every engine compiled into this build. Tests and
// tools that should cover every engine import it for its side effect:
//
//	import _ "github.com/kerasgo/kerasgo/backends/all"
//
// The libtorch engine is always registered; without the libtorch build tag
// opening it returns an error that says how to enable it.
package all

import (
	_ "github.com/kerasgo/kerasgo/backends/gorgonia" // the pure-Go default
	_ "github.com/kerasgo/kerasgo/backends/libtorch" // PyTorch's core, with -tags libtorch
)
