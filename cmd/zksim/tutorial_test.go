package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/live"
)

// Every command in docs/tutorial.md runs, with the exit status it is
// marked with ("# exit N"; 0 when unmarked), in a scratch directory where
// the tutorial's files ("# file: NAME" blocks) are written first, and
// prints the lines the tutorial shows under it, in that order (a line
// "..." stands for any); so does every "$ zksim" command of README.md (its
// demo, whose sample it shows), and README's scenario file example runs
// too. So both stay true.
func TestTutorialCommands(t *testing.T) {
	doc, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	figure, err := os.ReadFile("../../docs/figures/spacetime-noguid.svg")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	// The commands run as from the repository's root, where README's
	// serve example finds the harness's programs.
	if err := os.Symlink(filepath.Join(repo, "harness"), "harness"); err != nil {
		t.Fatal(err)
	}
	commands := runDocCommands(t, "docs/tutorial.md", string(doc))
	if commands < 8 {
		t.Fatalf("%d commands in the tutorial", commands)
	}
	// README's demo runs every built-in scenario, shrinking each variant's
	// counterexample: long under the race detector (make test's -race
	// -short pass); the full pass runs it.
	if !testing.Short() {
		// README's zksim serve examples run Debian's zkCli.sh and kazoo.
		if err := live.EnsureInstalled(os.Stderr); err != nil {
			t.Fatal(err)
		}
		if err := harness.EnsureInstalled(os.Stderr); err != nil {
			t.Fatal(err)
		}
		if n := runDocCommands(t, "README.md", string(readme)); n < 1 {
			t.Fatalf("%d commands with their output in README.md", n)
		}
	}
	if _, err := os.Stat(filepath.Join("noguid-report", "report.txt")); err != nil {
		t.Errorf("the tutorial's report was not written: %v", err)
	}
	checkTutorialFigure(t, figure)
	checkREADMEScenario(t, string(readme))
}

// runDocCommands runs every "$ zksim" command of doc's code blocks (after
// writing its "# file: NAME" blocks), with the exit status it is marked
// with, and checks the output shown under it; it returns how many it ran.
func runDocCommands(t *testing.T, name, doc string) int {
	t.Helper()
	commands := 0
	for _, block := range codeBlocks(doc) {
		lines := strings.Split(block, "\n")
		if name, ok := strings.CutPrefix(lines[0], "# file: "); ok {
			if err := os.WriteFile(name, []byte(strings.Join(lines[1:], "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for i, line := range lines {
			cmdline, ok := strings.CutPrefix(line, "$ zksim ")
			if !ok {
				continue
			}
			var shown []string // the output the tutorial shows under the command
			for _, l := range lines[i+1:] {
				if strings.HasPrefix(l, "$ ") {
					break
				}
				if l = strings.TrimSpace(l); l != "" && l != "..." {
					shown = append(shown, l)
				}
			}
			want := 0
			if i := strings.Index(cmdline, " # exit "); i >= 0 {
				want, _ = strconv.Atoi(strings.TrimSpace(cmdline[i+len(" # exit "):]))
				cmdline = cmdline[:i]
			}
			args := splitArgs(t, cmdline)
			var out, errOut bytes.Buffer
			if got := run(args, &out, &errOut); got != want || out.Len()+errOut.Len() == 0 {
				t.Errorf("zksim %s: exit %d, want %d\n%.2000s%s", cmdline, got, want, out.String(), errOut.String())
			}
			printed := out.String() + errOut.String()
			for _, l := range shown {
				at := strings.Index(printed, l)
				if at < 0 {
					t.Errorf("%s: zksim %s: it shows %q, which the tool does not print (in that order):\n%.3000s", name, cmdline, l, out.String())
					break
				}
				printed = printed[at+len(l):]
			}
			commands++
		}
	}
	return commands
}

// checkTutorialFigure checks that the tutorial's diagram is the one its
// command drew (in the current directory).
func checkTutorialFigure(t *testing.T, figure []byte) {
	t.Helper()
	// The tutorial's diagram is the one its command draws.
	drawn, err := os.ReadFile(filepath.Join("noguid-replay", "spacetime.svg"))
	if err != nil {
		t.Fatalf("the tutorial's diagram was not written: %v", err)
	}
	if !bytes.Equal(drawn, figure) {
		t.Errorf("docs/figures/spacetime-noguid.svg is not what the tutorial's command draws: cp noguid-replay/spacetime.svg from its output")
	}
}

// checkREADMEScenario runs README's scenario file example.
func checkREADMEScenario(t *testing.T, readme string) {
	t.Helper()
	for _, block := range codeBlocks(readme) {
		if strings.Contains(block, "kind: lock") && strings.Contains(block, "expect:") {
			os.WriteFile("readme.yaml", []byte(block), 0o644)
			var out, errOut bytes.Buffer
			if got := run([]string{"run", "readme.yaml", "--seeds", "5"}, &out, &errOut); got != 0 ||
				!strings.Contains(out.String(), "as expected") {
				t.Errorf("README's scenario: exit %d\n%s%s", got, out.String(), errOut.String())
			}
			return
		}
	}
	t.Error("README.md has no scenario file example")
}

// codeBlocks returns the bodies of a Markdown document's fenced blocks.
func codeBlocks(doc string) []string {
	var out []string
	parts := strings.Split(doc, "```")
	for i := 1; i < len(parts); i += 2 {
		body := parts[i]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:] // drop the info string (yaml, sh, ...)
		}
		out = append(out, strings.TrimRight(body, "\n"))
	}
	return out
}

// splitArgs splits a command line as a shell would for these commands:
// words, and single-quoted strings.
func splitArgs(t *testing.T, s string) []string {
	var args []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args
}
