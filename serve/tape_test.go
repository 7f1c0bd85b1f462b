package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
)

// A tape replays to the run's hash: across a server's crash, and across
// a client's pause, which the served run carried out on its process (the
// replay has no process, nor connections, to pause).
func TestATapeReplaysToTheSameHashAndFrames(t *testing.T) {
	for _, schedule := range []string{"at 300ms crash s1 for 1s", "at 300ms pause c1 1s"} {
		t.Run(schedule, func(t *testing.T) {
			sched, err := fault.ParseSchedule(schedule)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "run.tape")
			paused := 0
			opts := Options{Config: sim.Config{Seed: 5}, Faults: sched,
				Pause: func(_ string, ends []Ends, _ time.Duration) { paused += len(ends) }}
			if opts.Tape, err = CreateTape(path, opts); err != nil {
				t.Fatal(err)
			}
			res := served(t, opts, func(addrs []string) {
				c := connectGoZK(t, addrs)
				defer c.Close()
				for i := 0; i < 20; i++ {
					if _, err := c.Create("/n-", []byte("x"), zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrConnectionClosed) {
						t.Fatalf("create %d: %v", i, err)
					}
					time.Sleep(30 * time.Millisecond)
				}
			})
			tape, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer tape.Close()
			r, err := Replay(tape)
			if err != nil {
				t.Fatal(err)
			}
			if r.Result.Hash != res.Hash || r.Hash != res.Hash {
				t.Fatalf("served hash %x, tape's %x, replay's %x", res.Hash, r.Hash, r.Result.Hash)
			}
			if len(res.Struck) != 1 {
				t.Fatalf("faults struck: %v, want the %s", res.Struck, schedule)
			}
			if strings.Contains(schedule, "pause") && paused != 1 {
				t.Fatalf("the pause was given %d open connections, want c1's one", paused)
			}
		})
	}
}

func TestATapeWithAFrameChangedDoesNotReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.tape")
	opts := Options{Config: sim.Config{Seed: 6}}
	var err error
	if opts.Tape, err = CreateTape(path, opts); err != nil {
		t.Fatal(err)
	}
	served(t, opts, func(addrs []string) {
		c := connectGoZK(t, addrs)
		defer c.Close()
		if _, err := c.Create("/a", []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The create's path, /a, in the frame in: now /b.
	changed := strings.Replace(string(data), "00000002"+"2f61", "00000002"+"2f62", 1)
	if changed == string(data) {
		t.Fatal("the tape has no frame creating /a")
	}
	if _, err := Replay(strings.NewReader(changed)); err == nil {
		t.Fatal("a tape whose frame in was changed replayed without a complaint")
	}
}

func TestAMalformedFrameClosesItsConnectionAlone(t *testing.T) {
	served(t, Options{Config: sim.Config{Seed: 7}}, func(addrs []string) {
		good := connectGoZK(t, addrs)
		defer good.Close()
		bad, err := net.Dial("tcp", addrs[0])
		if err != nil {
			t.Fatal(err)
		}
		defer bad.Close()
		// A length far over jute.maxbuffer.
		if _, err := bad.Write(binary.BigEndian.AppendUint32(nil, 1<<30)); err != nil {
			t.Fatal(err)
		}
		bad.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := bad.Read(make([]byte, 1)); err == nil {
			t.Fatalf("the front end answered an oversized frame with %d byte(s) instead of closing", n)
		}
		if _, err := good.Create("/still", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("another session after the bad frame: %v", err)
		}
	})
}

// A tape is readable by others (0644, not a temporary file's 0600), and
// its end line's hash is written as zksim replay --hash prints one.
func TestATapeIsReadableAndItsHashPrintedWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.tape")
	opts := Options{Config: sim.Config{Seed: 1}}
	var err error
	if opts.Tape, err = CreateTape(path, opts); err != nil {
		t.Fatal(err)
	}
	res := served(t, opts, func([]string) {})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("the tape's mode is %v, want -rw-r--r--", fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`"hash":"%016x"`, res.Hash); !strings.Contains(string(data), want) {
		t.Fatalf("the tape's end line has no %s:\n%s", want, data)
	}
}
