"""kazoo's Election, unmodified, under zksim: campaign, lead a while, step
down.

Run by `zksim serve SCENARIO -- python3 kazoo_election.py [ROUNDS [HOLD_S
[STEP_S]]]`, one process per client. Each round campaigns with
Election.run: the acquire is recorded from the call of run until the
election calls the leader's function; the leader uses what leadership
protects every STEP_S seconds for HOLD_S seconds, and the release is
recorded from the leader's function's return until run returns (the
election lets go of its lock on the way out). zksim judges them with the
election's checks.
"""

import os
import sys
import time

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException

from zksim_events import Recorder

PATH = "/zksim/election"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    hold = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    step = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    election = zk.Election(PATH, str(os.getpid()))
    for _ in range(rounds):
        pending = [rec.call("acquire", PATH)]  # the operation under way

        def lead():
            rec.ret(pending.pop())  # elected
            held = 0.0
            while held < hold:
                time.sleep(step)
                held += step
                rec.instant("use", PATH)
            pending.append(rec.call("release", PATH))

        try:
            election.run(lead)
        except KazooException as e:
            rec.ret(pending.pop(), "failed", error=repr(e))
            continue
        rec.ret(pending.pop())
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
