// Package settings checks the settings structs users fill in (a layer's
// or an optimizer's exported fields) for what no setting may hold, so that
// a NaN rate is an error naming the field, never a NaN loss blamed on the
// data.
package settings
