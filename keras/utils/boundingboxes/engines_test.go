package boundingboxes_test

// The tests run on every engine compiled in.
import _ "github.com/kerasgo/kerasgo/backends/all"
