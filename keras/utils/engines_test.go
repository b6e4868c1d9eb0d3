package utils_test

// The loaders' tests that train run on every engine compiled in.
import _ "github.com/kerasgo/kerasgo/backends/all"
