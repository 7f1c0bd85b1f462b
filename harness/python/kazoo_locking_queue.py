"""kazoo's LockingQueue, unmodified, under zksim: producers put unique
items, consumers take them, a take being a get (the item locked) and its
consume (the item and its lock deleted together).

Run as kazoo_queue.py is (`python3 kazoo_locking_queue.py CONSUMERS
[ROUNDS [THINK_S [PATIENCE_S [IDLE_S]]]]`, the same clients, the same
records): a take is LockingQueue.get with PATIENCE_S as its timeout, then
consume; it took the item when consume returned True, and took nothing
(failed) when get found none or consume returned False (the item's lock
was no longer its: the item stays for another consumer).
"""

import kazoo_queue


def take_locking(queue, patience):
    """get, then consume: the item taken, or None."""
    item = queue.get(timeout=patience)
    if item is None or not queue.consume():
        return None
    return item


if __name__ == "__main__":
    kazoo_queue.main(make_queue=lambda zk: zk.LockingQueue(kazoo_queue.PATH), take=take_locking)
