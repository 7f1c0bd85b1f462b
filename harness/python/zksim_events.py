"""Recipe events for zksim: what a client believed, recorded as it happened.

A client run by `zksim serve SCENARIO -- COMMAND` finds the simulated
ensemble in ZKSIM_CONNECT and this recorder's socket in ZKSIM_EVENTS. It
records each operation's call before it calls the recipe and its return
after; zksim answers each line before the client goes on, so the history
zksim judges holds the operations in the order they happened, on the
simulated ensemble's clock:

    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    with rec.op("acquire", "/zksim/lock") as op:
        lock.acquire()
    rec.instant("use", "/zksim/lock")
    with rec.op("release", "/zksim/lock"):
        lock.release()

An operation whose call raised is recorded "failed" (the client knows it
did not happen) or, for a connection lost in flight, "unknown"; see op().
The protocol is documented in zksim's serve/events.go.
"""

import json
import os
import socket
import threading
import time
from contextlib import contextmanager


class Recorder:
    """A connection to zksim's recipe events socket, shared by threads."""

    def __init__(self, session, addr=None):
        # session: a function returning the client's ZooKeeper session id.
        host, port = (addr or os.environ["ZKSIM_EVENTS"]).rsplit(":", 1)
        self._sock = socket.create_connection((host, int(port)))
        self._file = self._sock.makefile("rw", encoding="utf-8", newline="\n")
        self._lock = threading.Lock()
        self._session = session
        self._last = None

    def _send(self, line):
        with self._lock:
            self._file.write(json.dumps(line) + "\n")
            self._file.flush()
            answer = json.loads(self._file.readline())
        if "error" in answer:
            raise RuntimeError("zksim refused a recipe event: " + answer["error"])
        return answer

    def _sid(self):
        # The client's first session, on every line: zksim names each new
        # session a new client, and a process whose session expired and
        # which opened another is still one client, whose operations are
        # the first session's client's. Until it has one, none.
        if not self._last:
            self._last = self._session()
        return self._last

    def call(self, kind, path, **fields):
        """Records the call of an operation; returns its id for ret()."""
        line = {"call": kind, "session": self._sid(), "path": path}
        line.update(fields)
        return self._send(line)["id"]

    def ret(self, op_id, result="ok", **fields):
        """Records the return of the operation op_id; fields may say what
        the call turned out to be: ret(op, **{"as": "withdraw"}) for a
        candidate's acquire given up (serve/events.go)."""
        line = {"return": op_id, "result": result}
        line.update(fields)
        self._send(line)

    def instant(self, kind, path, **fields):
        """Records an operation of one instant (a use of the resource)."""
        line = {"instant": kind, "session": self._sid(), "path": path}
        line.update(fields)
        self._send(line)

    @contextmanager
    def op(self, kind, path, unknown=(), **fields):
        """Records the call, runs the block, records its return: ok, or
        "unknown" for an exception of the types in unknown (the outcome
        cannot be known: a connection lost in flight), else "failed"."""
        op_id = self.call(kind, path, **fields)
        try:
            yield op_id
        except unknown as e:
            self.ret(op_id, "unknown", error=repr(e))
            raise
        except Exception as e:
            self.ret(op_id, "failed", error=repr(e))
            raise
        self.ret(op_id)

    def close(self):
        self._file.close()
        self._sock.close()


def hold_rounds(rec, path, lock, rounds, hold, step, errors, holds=None, **fields):
    """Takes lock (a recipe's object with acquire() and release()) rounds
    times, as zksim's holding workloads do: each round records an acquire
    (with fields: shared=True for a reader), a use every step seconds while
    it holds for hold seconds, and a release. A round whose acquire raised
    one of errors holds nothing and ends there; a release that raised one
    let go all the same. holds, when given, is the holder's own word that
    it still holds, asked before each use (holds.acquired() is called once
    the lock is granted): once it says no, the holder stops using and
    releases."""
    for _ in range(rounds):
        try:
            with rec.op("acquire", path, **fields):
                lock.acquire()
        except errors:
            continue
        if holds:
            holds.acquired()
        held = 0.0
        while held < hold:
            time.sleep(step)
            held += step
            if holds and not holds():
                break
            rec.instant("use", path)
        try:
            with rec.op("release", path):
                lock.release()
        except errors:
            pass
