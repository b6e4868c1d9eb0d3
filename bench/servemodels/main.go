// Command servemodels writes the models the serving benchmark serves
// (scripts/bench-serving.sh): the demo MLP and CNN (their weights as
// initialised: serving does the same work whatever the values), and one
// request body per model with one 28x28x1 image, as a client of
// TensorFlow Serving would send it.
//
//	servemodels -out build/bench-serving
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/gorgonia"
	"github.com/kerasgo/kerasgo/internal/models"
)

func main() {
	out := flag.String("out", "build/bench-serving", "directory to write the models and request bodies to")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for _, name := range []string{"mlp", "cnn"} {
		m, err := models.New(name)
		if err != nil {
			fail(err)
		}
		if err := m.Save(filepath.Join(*out, name+".keras")); err != nil {
			fail(err)
		}
	}
	// One image: a 28x28x1 gradient, written as nested lists.
	var b strings.Builder
	b.WriteString(`{"instances": [[`)
	for r := range 28 {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for c := range 28 {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "[%.4f]", float64(r*28+c)/784)
		}
		b.WriteByte(']')
	}
	b.WriteString("]]}\n")
	if err := os.WriteFile(filepath.Join(*out, "image.json"), []byte(b.String()), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "servemodels:", err)
	os.Exit(1)
}
