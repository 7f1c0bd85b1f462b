// Package harness holds the small client-side recorders of recipe events
// for real libraries, and what it takes to run them: the Python recorder
// (python/zksim_events.py, for kazoo) and the Java one
// (java/ZksimEvents.java, for Curator), each beside the programs that run
// a library's recipe, unmodified, under zksim serve (python/kazoo_<recipe>.py,
// a process per client; java/Curator<Recipe>.java, one per recipe, whose
// clients run as threads of one JVM: java/CuratorClients.java), and the
// table of them make libraries runs (table.go). Go's recorder lives in
// zksimtest.
//
// Its Go code finds Debian's packages (python3-kazoo, libcurator-recipes-java
// and a JDK), installing them with apt-get when they are missing and the
// process may, and compiles the Java sources. What it must never do: run a
// world, or skip silently when something is missing (it says what and how to
// install it).
//
// Its files are listed in docs/ARCHITECTURE.md.
package harness

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/zksim/zksim/internal/debian"
)

// Python is Debian's Python, whose dist-packages hold python3-kazoo (a
// python3 earlier on the PATH may be another).
const Python = "/usr/bin/python3"

// curatorJars are the jars Curator 5.4 and its ZooKeeper client need, as
// Debian installs them in /usr/share/java.
// (the ZooKeeper client's own NIO socket: no netty).
var curatorJars = []string{"curator-client", "curator-framework", "curator-recipes", "zookeeper", "zookeeper-jute", "guava",
	"slf4j-api"}

// packages are Debian's packages the harnesses need.
var packages = []string{"python3-kazoo", "libcurator-recipes-java", "default-jdk-headless"}

// Dir is the harness directory of the source tree: where this file is.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// EnsureInstalled makes sure kazoo, Curator and a JDK are there,
// installing Debian's packages with apt-get (after apt-get update) when
// one is missing and this process is root; otherwise it says how to.
func EnsureInstalled(log io.Writer) error {
	if installed() == nil {
		return nil
	}
	if err := debian.Install(log, packages...); err != nil {
		return fmt.Errorf("%v: %w", installed(), err)
	}
	return installed()
}

// installed says what is missing, or nil.
func installed() error {
	if err := exec.Command(Python, "-c", "import kazoo").Run(); err != nil {
		return fmt.Errorf("kazoo is missing (%s -c 'import kazoo': %v)", Python, err)
	}
	if _, err := exec.LookPath("javac"); err != nil {
		return fmt.Errorf("javac is missing (a JDK)")
	}
	for _, jar := range curatorJars {
		if _, err := os.Stat(jarPath(jar)); err != nil {
			return fmt.Errorf("the Curator jars are missing (%s)", jarPath(jar))
		}
	}
	return nil
}

func jarPath(name string) string { return "/usr/share/java/" + name + ".jar" }

// Classpath is Curator's class path, with dir (the compiled harness).
func Classpath(dir string) string {
	parts := []string{dir}
	for _, jar := range curatorJars {
		parts = append(parts, jarPath(jar))
	}
	return strings.Join(parts, ":")
}

// CompileJava compiles the Java harness into dir.
func CompileJava(dir string) error {
	sources, err := filepath.Glob(filepath.Join(Dir(), "java", "*.java"))
	if err != nil || len(sources) == 0 {
		return fmt.Errorf("no Java sources in %s", filepath.Join(Dir(), "java"))
	}
	cmd := exec.Command("javac", append([]string{"-d", dir, "-cp", Classpath(dir)}, sources...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("javac: %w\n%s", err, out)
	}
	return nil
}
