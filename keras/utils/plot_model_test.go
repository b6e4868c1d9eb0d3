package utils_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

var dotCorpus = &kerasref.Corpus{Script: "keras-dot.py"}

// dotGraph is a graph as scripts/keras-dot.py writes Keras's: nodes by
// layer name, edges by layer names, clusters within.
type dotGraph struct {
	Name       string            `json:"name"`
	Attributes map[string]string `json:"attributes"`
	Nodes      []struct {
		Name  string `json:"name"`
		Label string `json:"label"`
	} `json:"nodes"`
	Edges    [][2]string `json:"edges"`
	Clusters []dotGraph  `json:"clusters"`
}

var (
	dotNode     = regexp.MustCompile(`^"([^"]+)" \[label=(<.*>), fontname=Helvetica, border=0, margin=0\];$`)
	dotEdge     = regexp.MustCompile(`^"([^"]+)" -> "([^"]+)" \[penwidth=2\];$`)
	dotCluster  = regexp.MustCompile(`^subgraph "([^"]+)" \{$`)
	dotGraphKey = regexp.MustCompile(`^(\w+)=([^;\[]+);$`)
)

// parseDot reads kerasgo's DOT text back into a dotGraph, node paths cut
// to the layer's name as Keras's script names them.
func parseDot(t *testing.T, text string) dotGraph {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if lines[0] != "digraph G {" || lines[len(lines)-1] != "}" {
		t.Fatalf("not a digraph:\n%s", text)
	}
	name := func(path string) string { return path[strings.LastIndex(path, "/")+1:] }
	root := &dotGraph{Name: "G", Attributes: map[string]string{}}
	stack := []*dotGraph{root}
	for _, line := range lines[1 : len(lines)-1] {
		g := stack[len(stack)-1]
		switch {
		case dotNode.MatchString(line):
			m := dotNode.FindStringSubmatch(line)
			g.Nodes = append(g.Nodes, struct {
				Name  string `json:"name"`
				Label string `json:"label"`
			}{name(m[1]), m[2]})
		case dotEdge.MatchString(line):
			m := dotEdge.FindStringSubmatch(line)
			g.Edges = append(g.Edges, [2]string{name(m[1]), name(m[2])})
		case dotCluster.MatchString(line):
			g.Clusters = append(g.Clusters, dotGraph{Name: dotCluster.FindStringSubmatch(line)[1], Attributes: map[string]string{}})
			stack = append(stack, &g.Clusters[len(g.Clusters)-1])
		case line == "}":
			stack = stack[:len(stack)-1]
		case line == "node [shape=record];":
		case dotGraphKey.MatchString(line):
			m := dotGraphKey.FindStringSubmatch(line)
			g.Attributes[m[1]] = strings.Trim(m[2], `"`)
		default:
			t.Fatalf("unexpected DOT line %q", line)
		}
	}
	return *root
}

// comparable is the graph as text, Keras's "True" written as Graphviz's
// "true".
func (g dotGraph) comparable() string {
	var b strings.Builder
	for _, k := range []string{"rankdir", "concentrate", "dpi", "splines", "style", "label", "labeljust"} {
		if v, ok := g.Attributes[k]; ok {
			fmt.Fprintf(&b, "%s=%s\n", k, strings.ToLower(v))
		}
	}
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "node %s %s\n", n.Name, n.Label)
	}
	for _, c := range g.Clusters {
		fmt.Fprintf(&b, "cluster %s {\n%s}\n", c.Name, c.comparable())
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "edge %s -> %s\n", e[0], e[1])
	}
	return b.String()
}

// ModelToDot draws what Keras's model_to_dot draws, for Keras's own
// models (loaded from Keras's files): the same boxes with the same
// labels, character for character, in the same order, the same clusters
// and the same edges, for each setting.
func TestModelToDotMatchesKeras(t *testing.T) {
	var index struct {
		Cases []struct {
			Model   string `json:"model"`
			Options struct {
				ShowShapes           bool   `json:"show_shapes"`
				ShowDType            bool   `json:"show_dtype"`
				ShowLayerNames       *bool  `json:"show_layer_names"`
				RankDir              string `json:"rankdir"`
				ExpandNested         bool   `json:"expand_nested"`
				DPI                  int    `json:"dpi"`
				ShowLayerActivations bool   `json:"show_layer_activations"`
				ShowTrainable        bool   `json:"show_trainable"`
				Splines              string `json:"splines"`
			} `json:"options"`
			Graph dotGraph `json:"graph"`
		} `json:"cases"`
	}
	dir := dotCorpus.Build(t, &index)
	models := map[string]*keras.Model{}
	for _, c := range index.Cases {
		t.Run(fmt.Sprintf("%s/%+v", c.Model, c.Options), func(t *testing.T) {
			m := models[c.Model]
			if m == nil {
				var err error
				if m, err = keras.LoadModel(filepath.Join(dir, c.Model+".keras")); err != nil {
					t.Fatal(err)
				}
				models[c.Model] = m
			}
			o := c.Options
			text, err := utils.ModelToDot(m, keras.DotOptions{ShowShapes: o.ShowShapes, ShowDType: o.ShowDType,
				ShowLayerNames: o.ShowLayerNames == nil || *o.ShowLayerNames, // model_to_dot's default
				RankDir:        o.RankDir, ExpandNested: o.ExpandNested, DPI: o.DPI, ShowLayerActivations: o.ShowLayerActivations,
				ShowTrainable: o.ShowTrainable, Splines: o.Splines})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := parseDot(t, text).comparable(), c.Graph.comparable(); got != want {
				t.Errorf("kerasgo's graph:\n%s\nKeras's:\n%s", got, want)
			}
		})
	}
}

// PlotModel renders the graph with Graphviz: a PNG and an SVG that are
// what they say they are, a .dot file without Graphviz, and a format
// Graphviz does not know is an error that leaves no file.
func TestPlotModel(t *testing.T) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 3, Activation: "relu"}, &layers.Dense{Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := keras.DotOptions{ShowShapes: true, ShowLayerNames: true}
	if err := utils.PlotModel(m, filepath.Join(dir, "model.dot"), opts); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "model.dot"))
	if want, _ := utils.ModelToDot(m, opts); string(text) != want {
		t.Errorf("model.dot holds\n%s\nnot ModelToDot's\n%s", text, want)
	}
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("PlotModel's rendering SKIPPED: Graphviz is not installed: sudo apt-get install graphviz, then the tests again")
	}
	for file, magic := range map[string]string{"model.png": "\x89PNG", "model": "\x89PNG", "model.svg": "<?xml"} {
		p := filepath.Join(dir, file)
		if err := utils.PlotModel(m, p, opts); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(data, []byte(magic)) {
			t.Errorf("%s: %d bytes starting %q (%v), want a file starting %q", file, len(data), data[:min(8, len(data))], err, magic)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "model.svg"))
	for _, want := range []string{"dense", "Input shape", "(None, 4)"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the SVG does not show %q", want)
		}
	}
	err = utils.PlotModel(m, filepath.Join(dir, "model.nosuchformat"), opts)
	if err == nil || !strings.Contains(err.Error(), "nosuchformat") {
		t.Errorf("an unknown format: error %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "model.nosuchformat")); serr == nil {
		t.Error("a failed render left a file")
	}
	if err := utils.PlotModel(m, filepath.Join(dir, "x.png"), keras.DotOptions{RankDir: "UP"}); err == nil || !strings.Contains(err.Error(), `RankDir "UP"`) {
		t.Errorf("RankDir UP: error %v", err)
	}
}
