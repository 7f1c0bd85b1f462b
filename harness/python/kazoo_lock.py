"""kazoo's Lock, unmodified, under zksim: take it, use what it protects, let go.

Run by `zksim serve SCENARIO -- python3 kazoo_lock.py [ROUNDS [HOLD_S [STEP_S
[careful]]]]`, one process per client. Each round records an acquire, a use
every STEP_S seconds while it holds the lock for HOLD_S seconds, and a
release (zksim_events.py); zksim judges them with the lock's checks.

A careful holder does what kazoo's documentation of its locks asks: it
listens for the connection's state and, once SUSPENDED or LOST is reported
while it holds, no longer uses what the lock protects (it releases the
lock at once).
"""

import os
import sys
import threading

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import ConnectionLoss, SessionExpiredError

from zksim_events import Recorder, hold_rounds

PATH = "/zksim/lock"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    hold = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    step = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    lock = zk.Lock(PATH, str(os.getpid()))
    holds = None
    if len(sys.argv) > 4 and sys.argv[4] == "careful":
        lost = threading.Event()

        def listen(state):
            if state in (KazooState.SUSPENDED, KazooState.LOST):
                lost.set()

        zk.add_listener(listen)
        holds = Holds(lost)
    hold_rounds(rec, PATH, lock, rounds, hold, step, (ConnectionLoss, SessionExpiredError), holds=holds)
    rec.close()
    zk.stop()
    zk.close()


class Holds:
    """A careful holder's word that it still holds: no SUSPENDED or LOST
    came since it acquired."""

    def __init__(self, lost):
        self._lost = lost

    def acquired(self):
        self._lost.clear()

    def __call__(self):
        return not self._lost.is_set()


if __name__ == "__main__":
    main()
