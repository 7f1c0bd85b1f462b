package scenarios

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zksim/zksim/workload"
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
		data, err := readScenarioFile(arg)
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
			// A copy: a caller that sets its Spec's fields (zksim run
			// --swarm) must not change the library for the rest of the
			// process.
			c := *sc
			return &c, nil
		}
	}
	if now := workload.Renamed[arg]; now != "" {
		return nil, fmt.Errorf("no built-in scenario %q: it is called %q now (a scenario's name begins with its kind's)", arg, now)
	}
	var names []string
	for _, sc := range lib {
		names = append(names, sc.Name)
	}
	return nil, fmt.Errorf("no built-in scenario %q and no such file; the built-in ones: %s", arg, strings.Join(names, ", "))
}

// maxScenarioFile is the most a scenario file may hold: a scenario is a
// page of YAML; a megabyte is plenty.
const maxScenarioFile = 1 << 20

// readScenarioFile reads a scenario file, refusing at once what cannot be
// one: a directory, a device or a FIFO (zksim run /dev/zero), more than
// maxScenarioFile bytes, or text that is not UTF-8.
func readScenarioFile(name string) ([]byte, error) {
	data, err := readRegularFile(name, "a scenario file", maxScenarioFile)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidUTF8At(data)], []byte("\n"))
		return nil, fmt.Errorf("%s:%d: not UTF-8 text", name, line)
	}
	return data, nil
}

// readRegularFile reads name, what (a scenario file, a history file), of
// at most limit bytes; a directory, a device or a FIFO is refused before
// it is opened (opening a FIFO waits for a writer; a device may never end).
func readRegularFile(name, what string, limit int) ([]byte, error) {
	info, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file; want %s", name, what)
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s, not %s", name, fileKind(info.Mode()), what)
	}
	if info.Size() > int64(limit) {
		return nil, fmt.Errorf("%s: larger than %d bytes; too large for %s", name, limit, what)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes; too large for %s", name, limit, what)
	}
	return data, nil
}

// invalidUTF8At is the offset of data's first byte that is not UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// fileKind names what a file that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
