package zksimtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A user's module uses zksimtest as README says: zksim is not on a public
// module proxy, so their go.mod points at a clone with a replace
// directive. A scratch module with its own lock test (the recipe's lock,
// standing in for theirs) builds and passes.
func TestZksimtestFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own: the full pass runs it")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/mylock\n\ngo 1.26\n\nrequire github.com/zksim/zksim v0.0.0\n\n" +
			"replace github.com/zksim/zksim => " + root + "\n",
		"mylock_test.go": `package mylock

import (
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

func TestMyLock(t *testing.T) {
	zksimtest.Lock(t, func(conn client.Conn, path string) recipes.Locker {
		return recipes.NewLock(conn, path)
	}, zksimtest.Options{Seeds: 5})
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in a module of its own: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "test" && !strings.Contains(string(out), "ok  \texample.com/mylock") {
			t.Fatalf("go test in a module of its own:\n%s", out)
		}
	}
}
