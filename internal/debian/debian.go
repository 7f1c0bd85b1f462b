// Package debian installs Debian's packages the project's tests and
// targets need (zookeeper, python3-kazoo, libcurator-recipes-java, a JDK,
// chromium) when they are missing: apt-get update, then apt-get install,
// as root, waiting for another apt or dpkg to finish rather than failing
// on its lock. It must never install anything when the process is not
// root, nor fail without saying the command that would install it. Its
// place is in docs/ARCHITECTURE.md.
package debian

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// How is the command a person runs to install packages.
func How(packages ...string) string {
	return "sudo apt-get update && sudo apt-get install -y " + strings.Join(packages, " ")
}

// Install installs packages with apt-get, writing its output to log (nil:
// nowhere). Without apt-get, or as another user than root, it installs
// nothing and says how to.
func Install(log io.Writer, packages ...string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("there is no apt-get here; install Debian's %s: %s", strings.Join(packages, ", "), How(packages...))
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("installing Debian's %s needs root: %s", strings.Join(packages, ", "), How(packages...))
	}
	if log == nil {
		log = io.Discard
	}
	for _, args := range [][]string{{"update"}, append([]string{"install", "-y"}, packages...)} {
		cmd := exec.Command("apt-get", append([]string{"-o", "DPkg::Lock::Timeout=600"}, args...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %w (%s)", strings.Join(args, " "), err, How(packages...))
		}
	}
	return nil
}
