package metrics

import "github.com/kerasgo/kerasgo/keras/backend"

// Named is a metric given by its Keras name ("accuracy", "mae", "auc",
// ...), as Keras's compile takes a string. Compile resolves it with Get
// once it knows the output's shape ("accuracy" becomes binary, sparse
// categorical or categorical accuracy, as in Keras) and reports an
// unknown name; until then it is only a name.
type Named string

// Name returns the name as given; it is the metric's name in logs.
func (n Named) Name() string { return string(n) }

// Check reports whether n is a name Get knows, with the known names if
// not.
func (n Named) Check() error {
	_, err := n.Resolve(placeholderShape, placeholderShape)
	return err
}

// Resolve returns the metric n denotes for targets of shape yTrue and an
// output of shape yPred (batch dimension first), as Get.
func (n Named) Resolve(yTrue, yPred backend.Shape) (Metric, error) {
	return Get(string(n), yTrue, yPred)
}

// placeholderShape stands for an output's shape before it is known: every
// name Get knows resolves for it.
var placeholderShape = backend.Shape{-1, 2}

// Resolve returns m as it applies to targets of shape yTrue and an output
// of shape yPred (batch dimension first): a Named metric becomes the
// metric its name denotes, and a metric that depends on the output's
// shape (ForOutput) takes it.
func Resolve(m Metric, yTrue, yPred backend.Shape) (Metric, error) {
	if n, ok := m.(Named); ok {
		r, err := n.Resolve(yTrue, yPred)
		if err != nil {
			return nil, err
		}
		m = r
	}
	if f, ok := m.(interface {
		ForOutput(backend.Shape) Metric
	}); ok {
		m = f.ForOutput(yPred)
	}
	return m, nil
}
