// Package doccheck turns the Go code blocks of kerasgo's Markdown pages
// (docs/ and README.md) into programs that `go vet` can type-check, so
// that `make test` fails when a page shows code that does not compile.
//
// A page's blocks are fragments, as a teacher writes them. The rules:
//
//   - A ```go block stands alone unless an HTML comment just before it
//     names the program it belongs to: <!-- go: NAME -->. The blocks of
//     one program are joined in page order: declarations (types,
//     functions, methods) at the top level, statements, in order, in one
//     main function, so a later block sees an earlier block's variables.
//   - A page may declare, once, context its fragments assume without
//     showing it (a loaded dataset, a context.Context) in a comment that
//     readers do not see: <!-- go setup ... -->. Every program of the page
//     starts with it.
//   - Imports are added for the packages a program names (keras.,
//     layers., fmt., ...); a block may also show its own import lines.
//   - Variables a program declares but does not use are allowed (a
//     fragment shows how to get a value, not what to do with it).
//
// Nothing is run: a program is type-checked and vetted.
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// Program is one program assembled from a page's blocks.
type Program struct {
	Page   string // the page's path
	Name   string // the program's name on the page
	Line   int    // the line of its first block
	Source string // a main package
}

var (
	fence      = regexp.MustCompile("^```go\\s*$")
	marker     = regexp.MustCompile(`^<!--\s*go:\s*([A-Za-z0-9_-]+)\s*-->\s*$`)
	setupOpen  = regexp.MustCompile(`^<!--\s*go setup\s*$`)
	importLine = regexp.MustCompile(`^import\s+(\(|[_.A-Za-z0-9]*\s*"[^"]+")`)
)

// packages are the import paths of the names a fragment may use without
// importing them.
var packages = map[string]string{
	"keras":         "github.com/kerasgo/kerasgo/keras",
	"layers":        "github.com/kerasgo/kerasgo/keras/layers",
	"backend":       "github.com/kerasgo/kerasgo/keras/backend",
	"ops":           "github.com/kerasgo/kerasgo/keras/ops",
	"random":        "github.com/kerasgo/kerasgo/keras/random",
	"callbacks":     "github.com/kerasgo/kerasgo/keras/callbacks",
	"optimizers":    "github.com/kerasgo/kerasgo/keras/optimizers",
	"schedules":     "github.com/kerasgo/kerasgo/keras/optimizers/schedules",
	"losses":        "github.com/kerasgo/kerasgo/keras/losses",
	"regularizers":  "github.com/kerasgo/kerasgo/keras/regularizers",
	"constraints":   "github.com/kerasgo/kerasgo/keras/constraints",
	"metrics":       "github.com/kerasgo/kerasgo/keras/metrics",
	"initializers":  "github.com/kerasgo/kerasgo/keras/initializers",
	"activations":   "github.com/kerasgo/kerasgo/keras/activations",
	"applications":  "github.com/kerasgo/kerasgo/keras/applications",
	"distribution":  "github.com/kerasgo/kerasgo/keras/distribution",
	"saving":        "github.com/kerasgo/kerasgo/keras/saving",
	"serving":       "github.com/kerasgo/kerasgo/keras/serving",
	"serialization": "github.com/kerasgo/kerasgo/keras/serialization",
	"mnist":         "github.com/kerasgo/kerasgo/datasets/mnist",
	"datasets":      "github.com/kerasgo/kerasgo/datasets",
	"imdb":          "github.com/kerasgo/kerasgo/datasets/imdb",
	"plotting":      "github.com/kerasgo/kerasgo/keras/plotting",
	"utils":         "github.com/kerasgo/kerasgo/keras/utils",
	"boundingboxes": "github.com/kerasgo/kerasgo/keras/utils/boundingboxes",
	"transformer":   "github.com/kerasgo/kerasgo/examples/transformer",
	"context":       "context",
	"errors":        "errors",
	"filepath":      "path/filepath",
	"fmt":           "fmt",
	"http":          "net/http",
	"io":            "io",
	"iter":          "iter",
	"log":           "log",
	"math":          "math",
	"os":            "os",
	"rand":          "math/rand/v2",
	"slices":        "slices",
	"strings":       "strings",
	"sync":          "sync",
	"time":          "time",
}

type block struct {
	line    int
	imports []string // import specs, e.g. `_ "github.com/..."`
	code    string
}

type program struct {
	name   string
	blocks []block
}

// Programs returns the programs of the page at path whose Markdown text
// is text, in the order their first blocks appear.
func Programs(path, text string) ([]Program, error) {
	lines := strings.Split(text, "\n")
	var setup *block
	var progs []*program
	byName := map[string]*program{}
	pending := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case setupOpen.MatchString(l):
			if setup != nil {
				return nil, fmt.Errorf("%s:%d: a second <!-- go setup -->: a page has one", path, i+1)
			}
			start := i + 1
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "-->"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("%s:%d: <!-- go setup is not closed by a line holding -->", path, start)
			}
			b := parseBlock(start+1, body)
			setup = &b
		case marker.MatchString(l):
			pending = marker.FindStringSubmatch(l)[1]
		case fence.MatchString(l):
			start := i + 1
			var body []string
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("%s:%d: a ```go block is not closed", path, start)
			}
			name := pending
			if name == "" {
				name = fmt.Sprintf("block-at-line-%d", start)
			}
			p := byName[name]
			if p == nil {
				p = &program{name: name}
				byName[name] = p
				progs = append(progs, p)
			}
			p.blocks = append(p.blocks, parseBlock(start+1, body))
			pending = ""
		case strings.TrimSpace(l) != "":
			pending = "" // a marker applies to the block right after it
		}
	}
	out := make([]Program, 0, len(progs))
	for _, p := range progs {
		src, err := assemble(path, setup, p.blocks)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: program %q: %w", path, p.blocks[0].line, p.name, err)
		}
		out = append(out, Program{Page: path, Name: p.name, Line: p.blocks[0].line, Source: src})
	}
	return out, nil
}

// parseBlock splits a block's leading import lines from its code.
func parseBlock(line int, body []string) block {
	b := block{line: line}
	i := 0
	for i < len(body) {
		l := strings.TrimSpace(body[i])
		switch {
		case l == "":
			i++
			continue
		case importLine.MatchString(l) && strings.HasSuffix(l, "("):
			for i++; i < len(body) && strings.TrimSpace(body[i]) != ")"; i++ {
				if s := strings.TrimSpace(body[i]); s != "" && !strings.HasPrefix(s, "//") {
					b.imports = append(b.imports, s)
				}
			}
			i++
			continue
		case importLine.MatchString(l):
			b.imports = append(b.imports, strings.TrimSpace(strings.TrimPrefix(l, "import")))
			i++
			continue
		}
		break
	}
	b.code = strings.Join(body[i:], "\n")
	return b
}

// assemble makes a main package of a program's blocks: each block's
// declarations at the top level, its statements in main; the page's
// setup's statements come first, in an outer scope, so that a program
// may declare the same names again.
func assemble(path string, setup *block, blocks []block) (string, error) {
	var decls []string
	imports := map[string]bool{}
	statements := func(bs []block) (string, []string, error) {
		var stmts []string
		for _, b := range bs {
			for _, im := range b.imports {
				imports[im] = true
			}
			// A line directive makes the compiler's messages name the
			// page and the line of the block.
			for _, c := range chunks(b) {
				code := fmt.Sprintf("//line %s:%d\n%s", path, c.line, c.code)
				if isDeclarations(c.code) {
					decls = append(decls, code)
				} else {
					stmts = append(stmts, code)
				}
			}
		}
		body := strings.Join(stmts, "\n")
		names, err := declaredNames(body)
		return body, names, err
	}
	var outer, inner string
	var outerNames, innerNames []string
	var err error
	if setup != nil {
		if outer, outerNames, err = statements([]block{*setup}); err != nil {
			return "", fmt.Errorf("the page's go setup: %w", err)
		}
	}
	if inner, innerNames, err = statements(blocks); err != nil {
		return "", err
	}
	for name := range packageNames(strings.Join(decls, "\n") + "\n" + outer + "\n" + inner) {
		if path, ok := packages[name]; ok {
			imports[fmt.Sprintf("%q", path)] = true
		}
	}
	var specs []string
	for im := range imports {
		specs = append(specs, im)
	}
	sort.Strings(specs)
	var sb strings.Builder
	sb.WriteString("package main\n\nimport (\n")
	for _, s := range specs {
		sb.WriteString("\t" + s + "\n")
	}
	sb.WriteString(")\n\n")
	for _, d := range decls {
		sb.WriteString(d + "\n\n")
	}
	use := func(names []string) {
		for _, n := range names {
			sb.WriteString("\t_ = " + n + "\n")
		}
	}
	sb.WriteString("func main() {\n" + outer + "\n")
	use(outerNames)
	sb.WriteString("\t{\n" + inner + "\n")
	use(innerNames)
	sb.WriteString("\t}\n}\n")
	return sb.String(), nil
}

// packageNames returns the identifiers that code qualifies (name.X),
// outside comments and strings: the packages it uses.
func packageNames(code string) map[string]bool {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	sc.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, 0)
	out := map[string]bool{}
	prev, prevLit := token.ILLEGAL, ""
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.PERIOD && prev == token.IDENT {
			out[prevLit] = true
		}
		// A selector on a field (a.b.c) names no package: only an
		// identifier not itself after a period counts.
		if tok == token.IDENT && prev == token.PERIOD {
			tok = token.ILLEGAL
		}
		prev, prevLit = tok, lit
	}
}

// chunks returns b whole, or, when it mixes declarations with statements
// (a function a fragment calls, then the fragment), its parts separated
// by blank lines.
func chunks(b block) []block {
	if isDeclarations(b.code) || parses(b.code) {
		return []block{b}
	}
	var out []block
	line := b.line
	for _, part := range strings.Split(b.code, "\n\n") {
		out = append(out, block{line: line, code: part})
		line += strings.Count(part, "\n") + 2
	}
	return out
}

// parses reports whether code parses as statements.
func parses(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc main() {\n"+code+"\n}", parser.SkipObjectResolution)
	return err == nil
}

// isDeclarations reports whether code is only top-level declarations.
func isDeclarations(code string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+code, parser.SkipObjectResolution)
	return err == nil && len(f.Decls) > 0
}

// declaredNames returns the variables body declares at its top level
// (with := or var), so that main can use them once.
func declaredNames(body string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc main() {\n"+body+"\n}", parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("its statements do not parse: %v", err)
	}
	seen := map[string]bool{}
	var out []string
	add := func(id *ast.Ident) {
		if id.Name != "_" && !seen[id.Name] {
			seen[id.Name] = true
			out = append(out, id.Name)
		}
	}
	for _, s := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch s := s.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				for _, l := range s.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						add(id)
					}
				}
			}
		}
	}
	return out, nil
}
