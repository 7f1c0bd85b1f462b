"""kazoo's Counter, unmodified, under zksim: add to a shared counter, read
it back.

Run by `zksim serve SCENARIO -- python3 kazoo_counter.py [ROUNDS
[THINK_S]]`, one process per client, each with its number N in
ZKSIM_CLIENT. As zksim's counter workload does, round k adds 1 when k is
odd and 10·N when it is even (so that a lost or doubled increment shows
whose it was), reads the counter THINK_S later, and goes on THINK_S after
that. An add is recorded with its delta and the value it made
(Counter.post_value), or of unknown outcome when it raised (it may have
been applied, or not; it is not made again); a read with the value read,
or failed when it raised (then the client reads again). zksim judges them
with the counter's checks.

A read syncs first, as zksim's own counter does: Counter.value reads the
client's server, which may not have applied an add another client saw
return (ZooKeeper's reads are not linearizable), and the counter check
asks a count to be no older than every add that returned before it.
Without the sync, one run in three under contention read a stale count.
"""

import os
import sys
import time

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException

from zksim_events import Recorder

PATH = "/zksim/counter"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    think = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    n = int(os.environ["ZKSIM_CLIENT"])
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    counter = zk.Counter(PATH)
    for k in range(1, rounds + 1):
        delta = 1 if k % 2 else 10 * n
        op = rec.call("add", PATH, data=str(delta))
        try:
            counter += delta
        except KazooException as e:
            rec.ret(op, "unknown", error=repr(e))
        else:
            rec.ret(op, out=str(counter.post_value))
        time.sleep(think)
        while True:
            op = rec.call("count", PATH)
            try:
                zk.sync(PATH)  # the client's server brought up to date
                value = counter.value
            except KazooException as e:
                rec.ret(op, "failed", error=repr(e))
                continue
            rec.ret(op, out=str(value))
            break
        time.sleep(think)
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
