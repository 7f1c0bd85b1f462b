"""kazoo's Lock, unmodified, under zksim: take it, use what it protects, let go.

Run by `zksim serve SCENARIO -- python3 kazoo_lock.py [ROUNDS [HOLD_S [STEP_S]]]`,
one process per client. Each round records an acquire, a use every STEP_S
seconds while it holds the lock for HOLD_S seconds, and a release
(zksim_events.py); zksim judges them with the lock's checks.
"""

import os
import sys

from kazoo.client import KazooClient
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
    hold_rounds(rec, PATH, lock, rounds, hold, step, (ConnectionLoss, SessionExpiredError))
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
