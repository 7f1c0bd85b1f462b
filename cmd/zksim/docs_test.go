package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/scenarios"
)

// zksimCommand finds a zksim command line in a line of the docs: after
// "go run ./cmd/zksim ", "$ zksim " or a backquoted "zksim ".
var zksimCommand = regexp.MustCompile("(?:go run \\./cmd/zksim |\\$ zksim |`zksim )([^`#]*)")

// Every zksim command in README.md and docs/ is one zksim accepts as
// printed: its subcommand and flags exist, and the scenario it names is a
// built-in one or a file the docs write. (The tutorial's are run too, by
// TestTutorialCommands.) Synopses, with placeholders in capitals or
// brackets, are left out.
func TestDocsCommands(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, sc := range lib {
		known[sc.Name] = true
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range regexp.MustCompile(`# file: (\S+)`).FindAllStringSubmatch(string(data), -1) {
			known[name[1]] = true // a file the doc writes
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range zksimCommand.FindAllStringSubmatch(line, -1) {
				text := strings.TrimSpace(m[1])
				if text == "" || text == "..." || strings.ContainsAny(text, "[]") || regexp.MustCompile(`\b[A-Z]{2,}\b`).MatchString(text) {
					continue // a synopsis
				}
				if err := checkDocCommand(text, known); err != nil {
					t.Errorf("%s:%d: zksim %s: %v", filepath.Base(f), i+1, text, err)
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d commands found in the docs", checked)
	}
}

// checkDocCommand parses a command line as zksim would, without running it.
func checkDocCommand(text string, known map[string]bool) error {
	args := strings.Fields(strings.ReplaceAll(text, "'", ""))
	root := newRoot(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	pos := cmd.Flags().Args()
	if slices.Contains([]string{"run", "replay", "explore", "live"}, cmd.Name()) && len(pos) > 0 && !known[pos[0]] {
		return fmt.Errorf("no built-in scenario %q and no file the docs write", pos[0])
	}
	return nil
}
