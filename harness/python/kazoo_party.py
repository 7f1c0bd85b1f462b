"""kazoo's Party, unmodified, under zksim: members join and leave a group,
watchers list it.

Run by `zksim serve SCENARIO -- python3 kazoo_party.py CLIENTS WATCHERS
[ROUNDS [STEP_S [THINK_S [FAILURES [WATCH_S]]]]]`, one process per client
(CLIENTS of them), each with its number N in ZKSIM_CLIENT. As in zksim's
membership workload, the first WATCHERS clients watch the group; the
others are its members, named "cN" (the party's identifier), joining
STEP_S apart. Of the members, the last FAILURES fail: they stay
2×ROUNDS×THINK_S, record a fail and end without closing their sessions
(their nodes go when the sessions expire); of the others every second one
comes and goes ROUNDS times (joins, stays THINK_S, leaves, stays away
THINK_S) and then stays out; the rest stay. A Party cannot be watched: a
watcher lists it (iterating it) every 100ms for WATCH_S, recording each
list as a view; the members that stay, and those that stay out, run
until the watchers are done (WATCH_S and a second). WATCH_S must reach
past the last change by the membership check's bound (two session
timeouts: 20s) for the views to be judged. zksim judges them with the
membership check.
"""

import os
import sys
import time

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException

from zksim_events import Recorder

PATH = "/zksim/group"


def main():
    clients, watchers = int(sys.argv[1]), int(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    step = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
    think = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
    failures = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    watch = float(sys.argv[7]) if len(sys.argv) > 7 else 25.0
    n = int(os.environ["ZKSIM_CLIENT"])
    name = "c%d" % n
    zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
    zk.start(timeout=30)
    rec = Recorder(session=lambda: zk.client_id and zk.client_id[0])
    party = zk.Party(PATH, name)
    start = time.monotonic()
    members, m = clients - watchers, n - watchers - 1
    if m < 0:
        while time.monotonic() - start < watch:
            op = rec.call("view", PATH)
            try:
                view = sorted(party)
            except KazooException as e:
                rec.ret(op, "failed", error=repr(e))
            else:
                rec.ret(op, out=",".join(view))
            time.sleep(0.1)
    else:
        time.sleep(m * step)
        fails = m >= members - min(failures, members)
        comes_and_goes = not fails and m % 2 == 1
        for _ in range(rounds if comes_and_goes else 1):
            with rec.op("join", PATH, data=name):
                party.join()
            if fails:
                time.sleep(2 * rounds * think)
                rec.instant("fail", PATH, data=name)
                os._exit(0)  # a crash: the session is left to expire
            if comes_and_goes:
                time.sleep(think)
                with rec.op("leave", PATH, data=name):
                    party.leave()
                time.sleep(think)
        time.sleep(max(0.0, watch + 1 - (time.monotonic() - start)))
    rec.close()
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
