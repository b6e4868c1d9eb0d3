package keras

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/layers"
)

// Notes returns what kerasgo computes differently from the file the model
// was loaded from, or skipped of it, one line each: the layers whose
// Keras dtype policy is a reduced-precision one ("mixed_float16",
// "mixed_bfloat16", "float16", "bfloat16"), which kerasgo computes in
// float32 (their outputs differ from Keras's by the half-precision
// rounding Keras has, about 1e-3 relative for float16; saving writes the
// policy back); and a saved optimizer state that does not fit the
// optimizer (an older Keras's RMSprop, say), which LoadModel skips as
// Keras's load_model does, with its warning, so that training starts the
// optimizer afresh. A model with no notes computes what Keras computes.
func (m *Model) Notes() []string {
	notes := append([]string(nil), m.loadNotes...)
	for _, l := range m.Layers() {
		if p := l.Common().DTypePolicy(); p != "" {
			notes = append(notes, fmt.Sprintf("layer %s: dtype policy %q is computed in float32 (kerasgo computes in float32 only)", layers.Describe(l), p))
		}
	}
	return notes
}
