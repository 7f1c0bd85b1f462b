"""kazoo's DoubleBarrier, unmodified, under zksim: processes enter
together, compute, and leave together, in rounds.

Run by `zksim serve SCENARIO -- python3 kazoo_double_barrier.py SIZE
[ROUNDS [STEP_S [FAILURES]]]`, one process per client (SIZE of them), each
with its number N in ZKSIM_CLIENT. As in zksim's double-barrier workload,
process "c0N" enters a fresh barrier each round (/zksim/double-barrier/r1,
r2, ...) of SIZE processes, computes for STEP_S × (1 + (N-1+round) mod
SIZE), and leaves; in the last round the FAILURES lowest processes fail
halfway through their computation: a fail is recorded, and the process
ends without closing its session (its node goes when the session
expires). Enter and leave are recorded from call to return; kazoo's enter
and leave swallow errors (a cleanup is tried), so an enter after which
the barrier says it is not participating is recorded as failed.
zksim judges them with the double barrier's checks.
"""

import os
import sys
import time

from kazoo.client import KazooClient

from zksim_events import Recorder


def main():
    size = int(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    step = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
    failures = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    n = int(os.environ["ZKSIM_CLIENT"])
    name = "c%02d" % n
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    for r in range(rounds):
        path = "/zksim/double-barrier/r%d" % (r + 1)
        barrier = zk.DoubleBarrier(path, size, identifier=name)
        op = rec.call("enter", path)
        barrier.enter()
        if not barrier.participating:
            rec.ret(op, "failed", error="enter: not participating")
            break
        rec.ret(op)
        compute = step * (1 + (n - 1 + r) % size)
        if r == rounds - 1 and n <= failures:
            time.sleep(compute / 2)
            rec.instant("fail", path, data=name)
            os._exit(0)  # a crash: the session is left to expire
        time.sleep(compute)
        with rec.op("leave", path):
            barrier.leave()
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
