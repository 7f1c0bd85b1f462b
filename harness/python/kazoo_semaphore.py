"""kazoo's Semaphore, unmodified, under zksim: take a lease, use what it
protects, give it back.

Run by `zksim serve SCENARIO -- python3 kazoo_semaphore.py [ROUNDS [HOLD_S
[STEP_S [LEASES]]]]`, one process per client. Each round records an acquire,
a use every STEP_S seconds while it holds a lease for HOLD_S seconds, and a
release, on the semaphore's node, as zksim's semaphore workload records
them (its lease nodes are that node's children); zksim judges them with the
semaphore's checks. LEASES (default 2) must be the scenario's size (its
workload's "size": semaphore-contention's is 3), the permits the semaphore
check allows.
"""

import os
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException

from zksim_events import Recorder, hold_rounds

PATH = "/zksim/semaphore"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    hold = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    step = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    leases = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    sem = zk.Semaphore(PATH, str(os.getpid()), max_leases=leases)
    hold_rounds(rec, PATH, sem, rounds, hold, step, KazooException)
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
