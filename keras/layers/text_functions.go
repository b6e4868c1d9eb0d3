package layers

import (
	"fmt"

	named "github.com/kerasgo/kerasgo/internal/registry"
)

// TextStandardizer is a TextVectorization's own standardization of one
// text, Keras's standardize callable (a keras.io example's
// custom_standardization: lower-case and strip HTML).
type TextStandardizer func(text string) string

// TextSplitter is a TextVectorization's own splitting of one
// standardized text into tokens, Keras's split callable.
type TextSplitter func(text string) []string

var (
	textStandardizers named.Registry[TextStandardizer]
	textSplitters     named.Registry[TextSplitter]
)

// RegisterTextStandardizer makes f the standardization a TextVectorization
// names by Standardize: name, as Keras's
// register_keras_serializable makes a standardize function loadable. A
// model saved with it writes the name, and LoadModel finds the function
// again; a Keras file whose layer was given a registered Python function
// loads when f is registered under the function's name. Register once, in
// an init function; a built-in name or a second registration is an error.
// Safe for concurrent use.
func RegisterTextStandardizer(name string, f TextStandardizer) error {
	if f == nil {
		return fmt.Errorf("layers.RegisterTextStandardizer(%q): the function is nil", name)
	}
	return textStandardizers.Register("standardize function", name, f, func(n string) bool {
		switch n {
		case "", "lower_and_strip_punctuation", "lower", "strip_punctuation", "none":
			return true
		}
		return false
	})
}

// RegisterTextSplitter makes f the splitting a TextVectorization names by
// Split: name, as RegisterTextStandardizer does for standardizing.
func RegisterTextSplitter(name string, f TextSplitter) error {
	if f == nil {
		return fmt.Errorf("layers.RegisterTextSplitter(%q): the function is nil", name)
	}
	return textSplitters.Register("split function", name, f, func(n string) bool {
		switch n {
		case "", "whitespace", "character", "none":
			return true
		}
		return false
	})
}
