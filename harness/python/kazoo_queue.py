"""kazoo's Queue, unmodified, under zksim: producers put unique items,
consumers take them.

Run by `zksim serve SCENARIO -- python3 kazoo_queue.py CONSUMERS [ROUNDS
[THINK_S [PATIENCE_S [IDLE_S]]]]`, one process per client, each with its
number N in ZKSIM_CLIENT: as in zksim's queue workload, the first
CONSUMERS clients take and the others put ROUNDS items each, "cN-1",
"cN-2", ... (unique, as the delivery checks need), THINK_S apart. A put is
recorded with its item, of unknown outcome when it raised (it is not put
again). A consumer's take is recorded from its call until it took an item
(ok, with the item) or PATIENCE_S passed without one (failed: it took
nothing), of unknown outcome when it raised (it may have removed an
item); a consumer stops once its takes have found nothing for IDLE_S.
zksim judges them with the queue's checks (fifo, exactly-once, liveness,
herd).

Queue.get does not wait: it returns None on an empty queue, so a take
asks again every 50ms until its patience runs out. kazoo_locking_queue.py
runs LockingQueue with the same clients.
"""

import os
import sys
import time

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException

from zksim_events import Recorder

PATH = "/zksim/queue"


def main(make_queue=lambda zk: zk.Queue(PATH), take=None):
    consumers = int(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    think = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    patience = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    idle = float(sys.argv[5]) if len(sys.argv) > 5 else 3.0
    n = int(os.environ["ZKSIM_CLIENT"])
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    queue = make_queue(zk)
    if n > consumers:
        produce(rec, queue, n, rounds, think)
    else:
        consume(rec, queue, take or take_polling, patience, idle)
    rec.close()
    zk.stop()
    zk.close()


def produce(rec, queue, n, rounds, think):
    for k in range(1, rounds + 1):
        item = "c%d-%d" % (n, k)
        op = rec.call("put", PATH, data=item)
        try:
            queue.put(item.encode())
        except KazooException as e:
            rec.ret(op, "unknown", error=repr(e))
        else:
            rec.ret(op)
        time.sleep(think)


def consume(rec, queue, take, patience, idle):
    last = time.monotonic()
    while time.monotonic() - last < idle:
        op = rec.call("take", PATH)
        try:
            item = take(queue, patience)
        except KazooException as e:
            rec.ret(op, "unknown", error=repr(e))
            continue
        if item is None:
            rec.ret(op, "failed", error="nothing within %gs" % patience)
            continue
        rec.ret(op, out=item.decode())
        last = time.monotonic()


def take_polling(queue, patience):
    """Queue.get until it returns an item, or patience runs out (None)."""
    give_up = time.monotonic() + patience
    while True:
        item = queue.get()
        if item is not None or time.monotonic() >= give_up:
            return item
        time.sleep(0.05)


if __name__ == "__main__":
    main()
