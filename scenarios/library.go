package scenarios

import (
	"embed"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
)

// library holds the built-in scenarios, one file each, named for the
// scenario: each recipe under the faults that matter to it, each teaching
// variant under the experiment that breaks it, and the findings (a recipe
// that does not hold under some fault, explained in its description).
//
//go:embed library/*.yaml
var library embed.FS

var (
	libraryOnce sync.Once
	libraryList []*Scenario
	libraryErr  error
)

// Library is the built-in scenarios, by name.
func Library() ([]*Scenario, error) {
	libraryOnce.Do(func() {
		entries, err := library.ReadDir("library")
		if err != nil {
			libraryErr = err
			return
		}
		for _, e := range entries {
			data, err := library.ReadFile("library/" + e.Name())
			if err != nil {
				libraryErr = err
				return
			}
			sc, err := ParseScenario("library/"+e.Name(), data)
			if err != nil {
				libraryErr = fmt.Errorf("built-in scenario: %w", err)
				return
			}
			if want := strings.TrimSuffix(e.Name(), ".yaml"); sc.Name != want {
				if sc.Name != sc.Spec.Kind && sc.Name != sc.Spec.Variant {
					libraryErr = fmt.Errorf("library/%s names itself %q", e.Name(), sc.Name)
					return
				}
				sc.Name = want
			}
			sc.Spec.Name = sc.Name
			sc.Source = "built-in"
			libraryList = append(libraryList, sc)
		}
		slices.SortFunc(libraryList, func(a, b *Scenario) int { return strings.Compare(a.Name, b.Name) })
	})
	return libraryList, libraryErr
}

// LoadScenario finds a scenario: a file when arg names one (or ends in
// .yaml or .yml), else a built-in scenario of that name.
func LoadScenario(arg string) (*Scenario, error) {
	if ext := path.Ext(arg); ext == ".yaml" || ext == ".yml" || strings.ContainsRune(arg, os.PathSeparator) {
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		return ParseScenario(arg, data)
	}
	lib, err := Library()
	if err != nil {
		return nil, err
	}
	for _, sc := range lib {
		if sc.Name == arg {
			return sc, nil
		}
	}
	var names []string
	for _, sc := range lib {
		names = append(names, sc.Name)
	}
	return nil, fmt.Errorf("no built-in scenario %q and no such file; the built-in ones: %s", arg, strings.Join(names, ", "))
}
