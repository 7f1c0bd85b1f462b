package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, two levels up.
var root = filepath.Join("..", "..")

const module = "github.com/zksim/zksim/"

// layers are the packages and the packages of the module each may import
// (its code, not its tests): the direction of the house. A package missing
// here fails TestEveryPackageIsPlaced until it is given a place.
var layers = map[string][]string{
	"client":                {},
	"fault":                 {"client"},
	"trace":                 {"client", "fault", "jute"},
	"sim":                   {"client", "fault", "trace", "jute", "internal/stall"},
	"live":                  {"client", "fault", "jute", "internal/debian"},
	"jute":                  {"client"},
	"recipes":               {"client"},
	"models":                {"client"},
	"workload":              {"client", "recipes", "models"},
	"scenarios":             {"client", "fault", "trace", "sim", "live", "serve", "recipes", "models", "workload"},
	"search":                {"client", "fault", "models", "workload", "scenarios"},
	"differential":          {"client", "fault", "sim", "live", "recipes", "jute"},
	"serve":                 {"client", "fault", "sim", "jute"},
	"harness":               {"internal/debian"},
	"reports":               {"client", "fault", "trace", "recipes", "models", "scenarios", "search"},
	"zksimtest":             {"client", "fault", "trace", "sim", "live", "recipes", "models", "workload", "scenarios", "search", "reports", "serve"},
	"cmd/zksim":             {"client", "fault", "trace", "sim", "live", "recipes", "models", "workload", "scenarios", "search", "reports", "serve"},
	"internal/stall":        {},
	"internal/debian":       {},
	"internal/testshrink":   {},
	"internal/architecture": {},
}

// packages are the directories of the module that hold Go source files.
func packages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			if !slices.Contains(out, filepath.ToSlash(rel)) {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// sources are a package's non-test Go files, by name.
func sources(t *testing.T, pkg string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.go") {
			out = append(out, filepath.Base(n))
		}
	}
	return out
}

func TestEveryPackageIsPlaced(t *testing.T) {
	for _, pkg := range packages(t) {
		if _, ok := layers[pkg]; !ok {
			t.Errorf("package %s has no place in the house: give it its layer here and its section in docs/ARCHITECTURE.md", pkg)
		}
	}
}

// The imports keep their direction: each package imports only the
// packages below it (layers). In particular sim and live, the two worlds,
// import neither each other nor scenarios, and nothing below scenarios
// imports it.
func TestImportsKeepTheirDirection(t *testing.T) {
	fset := token.NewFileSet()
	for _, pkg := range packages(t) {
		for _, name := range sources(t, pkg) {
			f, err := parser.ParseFile(fset, filepath.Join(root, pkg, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				dep, ours := strings.CutPrefix(path, module)
				if ours && !slices.Contains(layers[pkg], dep) {
					t.Errorf("%s/%s imports %s, which is not below it (it may import %v)", pkg, name, dep, layers[pkg])
				}
			}
		}
	}
}

// Every package's doc comment states its contract (what it must never
// do) and sends the reader to docs/ARCHITECTURE.md for its files.
func TestPackageDocsStateTheirContract(t *testing.T) {
	fset := token.NewFileSet()
	for _, pkg := range packages(t) {
		if pkg == "cmd/zksim" {
			continue // a command: its doc is its usage
		}
		var doc string
		for _, name := range sources(t, pkg) {
			f, err := parser.ParseFile(fset, filepath.Join(root, pkg, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil {
				doc += f.Doc.Text()
			}
		}
		if !strings.Contains(doc, "never") || !strings.Contains(doc, "docs/ARCHITECTURE.md") {
			t.Errorf("package %s: its doc comment must say what it must never do and point to docs/ARCHITECTURE.md", pkg)
		}
	}
}

var goFile = regexp.MustCompile(`[A-Za-z0-9_]+\.go\b`)

// docs/ARCHITECTURE.md has a section per package ("## sim/"), and each
// names every source file of its package, and none that is gone.
func TestArchitectureNamesEveryFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	var cur string
	for _, line := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = strings.TrimSuffix(strings.Trim(strings.Fields(h + " x")[0], "`"), "/")
			continue
		}
		if cur != "" {
			sections[cur] += line + "\n"
		}
	}
	for _, pkg := range packages(t) {
		sec, ok := sections[pkg]
		if !ok {
			t.Errorf("docs/ARCHITECTURE.md has no section \"## %s/\"", pkg)
			continue
		}
		files := sources(t, pkg)
		for _, f := range files {
			if !strings.Contains(sec, "`"+f+"`") {
				t.Errorf("docs/ARCHITECTURE.md, section %s/: %s is not named (as `%s`)", pkg, f, f)
			}
		}
		for _, named := range goFile.FindAllString(sec, -1) {
			if _, err := os.Stat(filepath.Join(root, pkg, named)); err != nil {
				t.Errorf("docs/ARCHITECTURE.md, section %s/: names %s, which %s/ does not have", pkg, named, pkg)
			}
		}
	}
}

// No file outside testdata is longer than a reader can hold: 800 lines.
func TestNoFileOver800Lines(t *testing.T) {
	for _, pkg := range packages(t) {
		names, _ := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			if lines := strings.Count(string(data), "\n"); lines > 800 {
				t.Errorf("%s: %d lines; split it by concept (800 at most)", n, lines)
			}
		}
	}
}

// runners are the functions that make runs: reports calls none of them
// (it renders what search and scenarios made), though it reads their
// types and the run's trace (package trace; it imports no world).
var runners = map[string]func(name string) bool{
	"search": func(string) bool { return true },
	"scenarios": func(name string) bool {
		return strings.HasPrefix(name, "Run") || name == "Replay" || name == "LiveSeed"
	},
	"sim": func(name string) bool { return name == "New" },
}

// reports renders and runs nothing: no call in its code makes a run.
func TestReportsRunNothing(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range sources(t, "reports") {
		f, err := parser.ParseFile(fset, filepath.Join(root, "reports", name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && runners[pkg.Name] != nil && runners[pkg.Name](sel.Sel.Name) {
				t.Errorf("%s: reports/%s calls %s.%s, which makes runs: let search make them and hand reports the outcomes",
					fset.Position(call.Pos()), name, pkg.Name, sel.Sel.Name)
			}
			return true
		})
	}
}
