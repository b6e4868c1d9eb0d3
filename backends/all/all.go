// Package all registers every engine compiled into this build. Tests and
// tools that should cover every engine import it for its side effect:
//
//	import _ "github.com/kerasgo/kerasgo/backends/all"
package all

import (
	_ "github.com/kerasgo/kerasgo/backends/gorgonia" // the pure-Go default
)
