package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkOutDir makes sure dir can be written to before any work starts:
// it is a writable directory, or it does not exist yet and the nearest
// directory above it that does is writable. It leaves nothing behind.
func checkOutDir(flag, dir string) error {
	if err := writableDir(dir); err != nil {
		return usageError{fmt.Errorf("%s %s: %w", flag, dir, err)}
	}
	return nil
}

// checkOutFile is checkOutDir for a file to be written: not a directory,
// and its directory writable.
func checkOutFile(flag, file string) error {
	if info, err := os.Stat(file); err == nil && info.IsDir() {
		return usageError{fmt.Errorf("%s %s: a directory; want a file to write", flag, file)}
	}
	if err := writableDir(filepath.Dir(file)); err != nil {
		return usageError{fmt.Errorf("%s %s: %w", flag, file, err)}
	}
	return nil
}

func writableDir(dir string) error {
	at := filepath.Clean(dir)
	for {
		info, err := os.Stat(at)
		if err == nil {
			if !info.IsDir() {
				if at == filepath.Clean(dir) {
					return fmt.Errorf("not a directory")
				}
				return fmt.Errorf("cannot be created: %s is not a directory", at)
			}
			break
		}
		if !os.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR) {
			return err
		}
		parent := filepath.Dir(at)
		if parent == at {
			return err
		}
		at = parent
	}
	probe, err := os.MkdirTemp(at, ".zksim-write-check-")
	if err != nil {
		if at == filepath.Clean(dir) {
			return fmt.Errorf("not writable")
		}
		return fmt.Errorf("cannot be created: %s is not writable", at)
	}
	return os.Remove(probe)
}
