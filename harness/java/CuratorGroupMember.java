import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.zookeeper.data.Stat;

/**
 * Curator's GroupMember, unmodified, under zksim: every watcher's view of the group converges to
 * its live members.
 *
 * <p>Run by {@code zksim serve MEMBERSHIP-SCENARIO -- java CuratorGroupMember CLIENTS [ROUNDS
 * [STEP_MS [THINK_MS]]]}. The membership workload (zksim's workload/membership.go): the first
 * third of the clients (at least one) watch the group, the others are its members, each named for
 * its client (c3, ...), joining STEP_MS apart. The last member fails: it stays 2 × ROUNDS ×
 * THINK_MS, then crashes (its session left to expire, its node with it). Of the others every
 * second one comes and goes (joins, stays THINK_MS, leaves, stays away THINK_MS, ROUNDS times),
 * and the rest stay. A watcher views the group through a GroupMember of its own (Curator's has no
 * other way: it is a member too, and says so), recording each view that differs from its last,
 * until the view must have converged: zksim's bound (two session timeouts) after the last change,
 * and a second more. zksim judges them with the membership checks.
 *
 * <p>Recorded: join and leave (the member's name; join is GroupMember.start, leave its close;
 * failed, with the error, when it threw, and called again), fail (the member's name), view (the
 * members listed, sorted, comma-separated). A member whose session expired under it (its node
 * went) is recorded leaving then, and joining again until its node is back in its new session,
 * as GroupMember puts it back by itself.
 */
public final class CuratorGroupMember {
    private static final String PATH = "/zksim/group";
    /** How long after the last change the views may take to converge: two session timeouts. */
    private static final long BOUND_MS = 2L * CuratorClients.SESSION_MS;

    /** What the clients share (zksim's membershipRun). */
    private static final class Run {
        long lastChange = System.currentTimeMillis();
        int members;
        int settled;
        int watching;

        synchronized void changed() {
            lastChange = System.currentTimeMillis();
        }

        synchronized void settled() {
            settled++;
        }

        synchronized void watcherDone() {
            watching--;
        }

        /** Whether the watchers may stop: every member settled, and the bound passed since. */
        synchronized boolean viewed() {
            return settled == members && System.currentTimeMillis() > lastChange + BOUND_MS + 1000;
        }

        synchronized boolean watched() {
            return watching == 0;
        }
    }

    public static void main(String[] args) throws Exception {
        int clients = CuratorHolders.arg(args, 0, 6);
        int rounds = CuratorHolders.arg(args, 1, 2);
        long step = CuratorHolders.arg(args, 2, 50);
        long think = CuratorHolders.arg(args, 3, 500);
        int watchers = Math.min(Math.max(1, clients / 3), clients);
        Run run = new Run();
        run.members = clients - watchers;
        run.watching = watchers;
        CuratorClients.run(clients, c -> {
            Member m = new Member(c, run);
            if (c.index < watchers) {
                try {
                    m.join();
                    m.watch();
                } finally {
                    run.watcherDone();
                }
                return;
            }
            int k = c.index - watchers;
            CuratorClients.sleep(k * step);
            if (k == run.members - 1) { // fails
                m.join();
                m.stay(2 * rounds * think);
                c.rec.instant("fail", PATH, "data", c.name);
                run.changed();
                run.settled();
                c.crash();
                return;
            }
            if (k % 2 == 1) { // comes and goes
                for (int r = 0; r < rounds; r++) {
                    m.join();
                    m.stay(think);
                    m.leave();
                    CuratorClients.sleep(think);
                }
                run.settled();
                while (!run.watched()) {
                    CuratorClients.sleep(100);
                }
                return;
            }
            m.join();
            run.settled();
            m.stay(-1);
        });
    }

    /** A client in the group. */
    private static final class Member {
        private final CuratorClients.Client c;
        private final Run run;
        private GroupMember group;
        private long session;

        Member(CuratorClients.Client c, Run run) {
            this.c = c;
            this.run = run;
        }

        /** Joins, calling again after an error. */
        void join() throws Exception {
            for (int failures = 0; ; ) {
                long op = c.rec.call("join", PATH, "data", c.name);
                try {
                    group = new GroupMember(c.curator, PATH, c.name);
                    session = c.curator.getZookeeperClient().getZooKeeper().getSessionId();
                    group.start();
                    c.rec.ret(op, "ok");
                    run.changed();
                    return;
                } catch (Exception e) {
                    c.rec.ret(op, "failed", e);
                    if (++failures >= 20) {
                        throw e;
                    }
                }
            }
        }

        void leave() throws Exception {
            long op = c.rec.call("leave", PATH, "data", c.name);
            group.close();
            c.rec.ret(op, "ok");
            run.changed();
        }

        /**
         * Stays in the group for ms (below 0: until the watchers are done), noting a session
         * that expired under it: a leave then, and a join until GroupMember has put its node
         * back in the new session.
         */
        void stay(long ms) throws Exception {
            long until = System.currentTimeMillis() + ms;
            while (ms < 0 ? !run.watched() : System.currentTimeMillis() < until) {
                CuratorClients.sleep(Math.min(100, ms < 0 ? 100 : Math.max(1, until - System.currentTimeMillis())));
                long now = c.curator.getZookeeperClient().getZooKeeper().getSessionId();
                if (now == session || now == 0) {
                    continue;
                }
                c.rec.instant("leave", PATH, "data", c.name);
                long op = c.rec.call("join", PATH, "data", c.name);
                for (;;) {
                    Stat st = c.curator.checkExists().forPath(PATH + "/" + c.name);
                    if (st != null && st.getEphemeralOwner() == now) {
                        break;
                    }
                    CuratorClients.sleep(100);
                }
                session = now;
                c.rec.ret(op, "ok");
                run.changed();
            }
        }

        /** Views the group, recording each view that differs from the last, until it must have converged. */
        void watch() throws Exception {
            String last = null;
            for (boolean over = false; !over; ) {
                over = run.viewed();
                List<String> ids = new ArrayList<>(group.getCurrentMembers().keySet());
                Collections.sort(ids);
                String view = String.join(",", ids);
                if (!view.equals(last) || over) {
                    c.rec.instant("view", PATH, "out", view);
                    last = view;
                }
                CuratorClients.sleep(20);
            }
        }
    }
}
