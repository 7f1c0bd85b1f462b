package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The record `zksim ensemble start` keeps of a running local ensemble, one
// file per ensemble (named by --name) under the user's cache directory,
// for stop and status. It is created atomically: start reserves the file
// (O_EXCL) before any server starts, so two starts of one name cannot both
// record themselves, and replaces the reservation by the full record with a
// rename. Every process it names is recorded with its start time, so that
// stop signals only processes it can identify as its own (a PID reused by
// another program is left alone), and a record whose processes are gone is
// known to be stale.

// ensembleState is the record: the start command's process, the
// ensemble's directory and its servers.
type ensembleState struct {
	Owner   proc     `json:"owner"`
	Dir     string   `json:"dir,omitempty"`
	Servers []string `json:"servers,omitempty"`
	Procs   []proc   `json:"server_procs,omitempty"`
}

// proc identifies a process: its PID and its start time (clock ticks
// since boot, /proc/PID/stat's field 22), and a word its command line
// must hold.
type proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	Mark  string `json:"mark"`
}

// procOf records the running process pid, whose command line holds mark.
func procOf(pid int, mark string) proc {
	start, _ := procStart(pid)
	return proc{PID: pid, Start: start, Mark: mark}
}

// alive reports whether the process recorded is still this one: a process
// of that PID, started at the recorded time, whose command line holds the
// mark.
func (p proc) alive() bool {
	if p.PID <= 0 || p.Mark == "" { // no mark identifies no process: any command line holds ""
		return false
	}
	start, err := procStart(p.PID)
	if err != nil || start != p.Start {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
	return err == nil && strings.Contains(string(cmdline), p.Mark)
}

// procStart is a process's start time, from /proc/PID/stat.
func procStart(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after its closing parenthesis (field 3 onwards).
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	return strconv.ParseUint(fields[19], 10, 64) // field 22
}

// defaultStateFile is the record of the ensemble named name.
func defaultStateFile(name string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "zksim", "ensembles", name+".json")
}

// reserveState creates the record for owner (this process), failing if another
// live start holds it; a stale or unreadable record is replaced. Starts
// reserve one at a time, under an exclusive lock on the records' directory
// (no lock file is left behind), so that two starts at the same moment
// cannot both see no live record and both record themselves (a record is
// written whole, by rename, so a reader never sees it half-written).
func reserveState(path string, owner proc) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	unlock, err := lockFile(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(path); err == nil {
		st, rerr := readState(path)
		if rerr == nil && st.running() {
			return fmt.Errorf("an ensemble is already running, recorded in %s (pid %d): zksim ensemble stop first", path, st.Owner.PID)
		}
		if rerr == nil {
			st.clean(path) // stale: its processes are gone
		}
	}
	return writeState(path, ensembleState{Owner: owner})
}

// lockFile takes an exclusive lock on the file or directory at path,
// waiting for another holder, and returns what releases it.
func lockFile(path string) (func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// writeState replaces the record at path by st, atomically.
func writeState(path string, st ensembleState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ensemble-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readState reads the record at path; a malformed one is an error that
// says so.
func readState(path string) (*ensembleState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no local ensemble recorded (%s): zksim ensemble start first", path)
	}
	var st ensembleState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: not an ensemble record (%v); remove it, or zksim ensemble stop", path, err)
	}
	if st.Owner.PID <= 0 || len(st.Procs) != len(st.Servers) {
		return nil, fmt.Errorf("%s: not an ensemble record (no owner, or %d servers for %d processes); remove it, or zksim ensemble stop",
			path, len(st.Servers), len(st.Procs))
	}
	return &st, nil
}

// running reports whether the start command that recorded st still runs.
func (st *ensembleState) running() bool { return st.Owner.alive() }

// clean stops what is left of a stale ensemble: the servers it can
// identify as its own (SIGKILL), its directory, and the record.
func (st *ensembleState) clean(path string) {
	for _, p := range st.Procs {
		if p.alive() {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
	if st.Dir != "" && strings.Contains(filepath.Base(st.Dir), "zksim-ensemble") {
		os.RemoveAll(st.Dir)
	}
	os.Remove(path)
}
