package keras

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras/layers"
)

// Notes returns what kerasgo computes differently from the file the model
// was loaded from, or skipped of it, one line each: the layers whose
// Keras dtype policy is a reduced-precision one ("mixed_float16",
// "mixed_bfloat16", "float16", "bfloat16") that the model's engine
// computes in float32, having no such half-precision kernels
// (backend.Capabilities.Autocast: Gorgonia has none, libtorch has
// bfloat16 on a CPU and both on CUDA), whose outputs then differ from
// Keras's by the half-precision rounding Keras has (about 1e-3 relative
// for float16; saving writes the policy back); the variables of the
// "float16" and "bfloat16" policies, which kerasgo keeps in float32;
// and a saved optimizer state that does not fit the optimizer (an older
// Keras's RMSprop, say), which LoadModel skips as Keras's load_model
// does, with its warning, so that training starts the optimizer afresh.
// The engine is the compiled one, or the one a model never compiled
// predicts on once it has; before either, a reduced-precision layer is
// noted with what each engine does. A model with no notes computes what
// Keras computes.
func (m *Model) Notes() []string {
	notes := append([]string(nil), m.loadNotes...)
	be := m.Backend()
	if be == nil {
		m.mu.Lock()
		if m.inference != nil {
			be = m.inference.be
		}
		m.mu.Unlock()
	}
	for _, l := range m.Layers() {
		p := l.Common().DTypePolicy()
		if p == "" {
			continue
		}
		d := layers.ComputeDType(p)
		switch {
		case be == nil:
			notes = append(notes, fmt.Sprintf("layer %s: dtype policy %q is computed in %v on an engine that has %v kernels (libtorch), and in float32 on others (gorgonia)", layers.Describe(l), p, d, d))
		case !slices.Contains(be.Capabilities().Autocast, d):
			notes = append(notes, fmt.Sprintf("layer %s: dtype policy %q is computed in float32 on %s (%s), which has no %v kernels", layers.Describe(l), p, be.Name(), be.Capabilities().Device, d))
		}
		if p == "float16" || p == "bfloat16" {
			notes = append(notes, fmt.Sprintf("layer %s: dtype policy %q keeps its variables in float32 (kerasgo keeps every variable in float32; Keras keeps them in %v)", layers.Describe(l), p, d))
		}
	}
	return notes
}
