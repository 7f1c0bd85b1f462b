package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/zksim/zksim/reports"
)

// stagedOut is where a command writes a directory of output (a report, a
// violation's files) so that an interrupt never leaves it half-written:
// the files go into a scratch directory beside the output directory, and
// publish moves them in only when every one is written. Until then the
// output directory is as it was; abandon removes the scratch, and any
// directory above it that staging created.
type stagedOut struct {
	final   string // the output directory
	Dir     string // the scratch directory written into
	created string // the topmost directory staging created, or ""

	mu        sync.Mutex
	done      bool // published (or tried to) or abandoned
	published bool
}

// stageOut makes the scratch directory for final.
func stageOut(final string) (*stagedOut, error) {
	final = filepath.Clean(final)
	s := &stagedOut{final: final}
	parent := filepath.Dir(final)
	for at := parent; ; at = filepath.Dir(at) {
		if _, err := os.Stat(at); err == nil || filepath.Dir(at) == at {
			break
		}
		s.created = at
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(final)+".zksim-partial-")
	if err != nil {
		s.abandon()
		return nil, err
	}
	s.Dir = dir
	return s, nil
}

// publish moves what the scratch directory holds into the output
// directory, each entry replacing the one of the same name (a report's
// own files from an earlier run); other entries stay.
func (s *stagedOut) publish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errors.New("already published or abandoned")
	}
	s.done = true
	defer os.RemoveAll(s.Dir)
	if err := os.MkdirAll(s.final, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		to := filepath.Join(s.final, e.Name())
		if info, err := os.Lstat(to); err == nil && info.IsDir() && e.IsDir() {
			if err := os.RemoveAll(to); err != nil {
				return fmt.Errorf("replacing %s: %w", to, err)
			}
		}
		if err := os.Rename(filepath.Join(s.Dir, e.Name()), to); err != nil {
			return err
		}
	}
	s.published = true
	return nil
}

// abandon removes the scratch directory (and what staging created above
// it) unless the output was published; it says which happened.
func (s *stagedOut) abandon() (published bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.published {
		return true
	}
	s.done = true
	if s.Dir != "" {
		os.RemoveAll(s.Dir)
	}
	if s.created != "" {
		os.RemoveAll(s.created)
	}
	return false
}

// leave abandons the output for an interrupt and says what that left.
func (s *stagedOut) leave() string {
	if s.abandon() {
		return "the report in " + s.final + " was written whole"
	}
	return "nothing written: " + s.final + " is as it was"
}

// path is name's path in the output directory, for what a command prints
// (the scratch directory's name is never shown).
func (s *stagedOut) path(name string) string {
	return filepath.Join(s.final, name)
}

// writeViolationReport writes r's files into out through a stage, with
// r.Files naming them in out. An interrupt while it writes waits for it
// (the report is published whole) and is reported as interrupted, for the
// command to end as it ends on one.
func writeViolationReport(r *reports.ViolationReport, out string) (interrupted bool, err error) {
	sig := make(chan os.Signal, 1)
	defer notifyInterrupts(sig)()
	stage, err := stageOut(out)
	if err != nil {
		return false, err
	}
	defer stage.abandon()
	if err := r.Write(stage.Dir); err != nil {
		return false, err
	}
	if err := stage.publish(); err != nil {
		return false, err
	}
	for i, f := range r.Files {
		r.Files[i] = stage.path(filepath.Base(f))
	}
	select {
	case <-sig:
		return true, nil
	default:
		return false, nil
	}
}
