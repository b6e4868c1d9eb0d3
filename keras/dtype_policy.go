package keras

import (
	"sync"

	"github.com/kerasgo/kerasgo/keras/layers"
)

// globalPolicy is SetDTypePolicy's setting ("" until it is called: float32).
var globalPolicy struct {
	mu   sync.Mutex
	name string
}

// SetDTypePolicy is Keras's keras.config.set_dtype_policy (and
// keras.mixed_precision.set_global_policy): from this call on, a model's
// Compile gives policy ("mixed_bfloat16", "float32", ...) to each of its
// layers, and the layers they hold, whose policy was never chosen, as
// Keras gives it to each layer made without a dtype argument. A layer
// keeps the policy it was first compiled with, one set with
// layers.Base.SetDTypePolicy (Keras's guide keeps the logits float32
// this way) and one read from a file. Where Keras applies the policy
// when a layer is made, kerasgo applies it at the first Compile of a
// model holding the layer, since a Go layer is a struct made without a
// constructor; call it before building the model all the same. Like
// Keras's, it changes a setting of the whole process; safe for
// concurrent use.
func SetDTypePolicy(policy string) error {
	if err := layers.CheckDTypePolicy(policy); err != nil {
		return err
	}
	globalPolicy.mu.Lock()
	globalPolicy.name = policy
	globalPolicy.mu.Unlock()
	return nil
}

// DTypePolicy is Keras's keras.config.dtype_policy (and
// keras.mixed_precision.global_policy): the policy SetDTypePolicy set,
// "float32" if it was never called.
func DTypePolicy() string {
	globalPolicy.mu.Lock()
	defer globalPolicy.mu.Unlock()
	if globalPolicy.name == "" {
		return "float32"
	}
	return globalPolicy.name
}
