// Package inputcheck lets a caller inside kerasgo tell Model.Predict that
// the inputs it gives were checked already (Model.CheckInputs, run on
// each request by the model server before requests are batched), so that
// the layers' data checks (every token id of an Embedding's input) run
// once per request, not again on the batch. It is internal: a user's
// Predict always checks.
package inputcheck

import "context"

type checkedKey struct{}

// WithChecked returns a context that marks the inputs of the Predict it
// is given to as checked.
func WithChecked(ctx context.Context) context.Context {
	return context.WithValue(ctx, checkedKey{}, true)
}

// Checked reports whether ctx marks the inputs as checked.
func Checked(ctx context.Context) bool {
	v, _ := ctx.Value(checkedKey{}).(bool)
	return v
}
