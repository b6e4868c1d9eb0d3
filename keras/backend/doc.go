// Package backend is the contract between kerasgo's Keras layer and the
// engines that run it.
//
// Everything under keras/ (layers, losses, metrics, optimizers, the training
// loop) is written once against this package. An engine adapter (see
// backends/gorgonia) implements [Backend] and [Builder] and registers itself
// with [Register] from its init function, in the manner of database/sql
// drivers; programs select an engine with a blank import and [Open]:
//
//	import _ "github.com/kerasgo/kerasgo/backends/gorgonia"
//
//	be, err := backend.Open("") // explicit name > $KERASGO_BACKEND > ~/.kerasgo/kerasgo.json > "gorgonia"
//
// The unit an engine compiles is a [Func]: a function that describes a
// computation by calling [Builder] ops on symbolic [Value]s. A graph engine
// traces it once per input shape; an eager engine may run it directly.
// Compiled functions ([Executable]) exchange engine-owned [Tensor]s, so
// parameters can stay on the engine (and its device) between training steps.
package backend
