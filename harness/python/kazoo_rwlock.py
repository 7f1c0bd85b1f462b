"""kazoo's ReadLock and WriteLock, unmodified, under zksim: readers share
the lock, a writer holds it alone.

Run by `zksim serve SCENARIO -- python3 kazoo_rwlock.py READERS [ROUNDS
[HOLD_S [STEP_S]]]`, one process per client, each with its number in
ZKSIM_CLIENT (1, 2, ... in the order they start, as zksim names them c1,
c2, ...): the first READERS clients take the ReadLock, the others the
WriteLock, as zksim's shared-lock workload does. Each round records an
acquire (shared for a reader), a use every STEP_S seconds while it holds
the lock for HOLD_S seconds, and a release; zksim judges them with the
shared lock's checks (rwlock: one writer, or any number of readers).
"""

import os
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException

from zksim_events import Recorder, hold_rounds

PATH = "/zksim/shared-lock"


def main():
    readers = int(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    hold = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    step = float(sys.argv[4]) if len(sys.argv) > 4 else 0.25
    reads = int(os.environ["ZKSIM_CLIENT"]) <= readers
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    lock = (zk.ReadLock if reads else zk.WriteLock)(PATH, str(os.getpid()))
    hold_rounds(rec, PATH, lock, rounds, hold, step, KazooException, shared=reads)
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
