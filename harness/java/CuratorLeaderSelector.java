import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;

/**
 * Curator's LeaderSelector, unmodified, under zksim: at most one leader at a time.
 *
 * <p>Run by {@code zksim serve ELECTION-SCENARIO -- java CuratorLeaderSelector CLIENTS [ROUNDS
 * [STEPS [STEP_MS [fenced]]]]}. Each client has one selector; each round it queues for leadership (start,
 * then requeue), leads for STEPS steps while the selector says it has leadership, and lets go by
 * returning from takeLeadership; in some rounds it gives up waiting after one tenure
 * (interruptLeadership), as zksim's election workload does (CuratorHolders). The listener is
 * Curator's LeaderSelectorListenerAdapter: a suspended or lost connection interrupts the
 * leadership. Its token is the sequence number of the selector's lock node, the lowest while it
 * leads. zksim judges them with the election's checks.
 */
public final class CuratorLeaderSelector {
    private static final String PATH = "/zksim/election";

    public static void main(String[] args) throws Exception {
        CuratorHolders.Shape shape = CuratorHolders.Shape.of(args, 1);
        CuratorClients.run(CuratorHolders.arg(args, 0, 5), c -> {
            Candidate candidate = new Candidate(c.curator);
            try {
                CuratorHolders.hold(c, PATH, shape, false, true, candidate);
            } finally {
                candidate.close();
            }
        });
    }

    /**
     * A client's candidacy: takeLeadership, run by the selector's own thread, holds leadership
     * until the client lets go; the client's thread acts while it does.
     */
    private static final class Candidate extends LeaderSelectorListenerAdapter implements CuratorHolders.Holder {
        private final ExecutorService thread = Executors.newSingleThreadExecutor();
        private final CuratorFramework curator;
        private final LeaderSelector selector;
        private boolean started;
        private boolean granted;
        private boolean letGo;
        private boolean gaveUp;
        /** Runs once the selector's attempt is over (its thread runs one task at a time). */
        private Future<?> over;

        Candidate(CuratorFramework curator) {
            this.curator = curator;
            selector = new LeaderSelector(curator, PATH, thread, this);
        }

        @Override
        public void takeLeadership(CuratorFramework curator) throws Exception {
            synchronized (this) {
                if (gaveUp) {
                    return; // it gave up waiting just as leadership came: it never led
                }
                granted = true;
                notifyAll();
                while (!letGo) {
                    wait();
                }
            }
        }

        @Override
        public Long acquire(long waitMs) throws Exception {
            synchronized (this) {
                granted = letGo = gaveUp = false;
            }
            if (!started) {
                selector.start();
                started = true;
            } else {
                selector.requeue();
            }
            over = thread.submit(() -> {});
            long deadline = System.currentTimeMillis() + waitMs;
            synchronized (this) {
                while (!granted) {
                    if (over.isDone()) { // the attempt ended (its connection lost) without leadership
                        throw new IllegalStateException("the selector's attempt ended without leadership");
                    }
                    long left = deadline - System.currentTimeMillis();
                    if (waitMs > 0 && left <= 0) {
                        gaveUp = true;
                        break;
                    }
                    wait(waitMs > 0 ? Math.min(left, 100) : 100);
                }
            }
            if (gaveUp) {
                selector.interruptLeadership(); // the candidate goes: its node with it
                over.get();
                return null;
            }
            try {
                return leaderNode();
            } catch (Exception e) {
                release();
                throw e;
            }
        }

        /**
         * The token: the sequence number of the leader's node, ours (the selector's lock does not
         * say which node is its own; the holder's is the lowest).
         */
        private long leaderNode() throws Exception {
            long lowest = Long.MAX_VALUE;
            for (String node : curator.getChildren().forPath(PATH)) {
                if (node.contains("-lock-")) {
                    lowest = Math.min(lowest, CuratorClients.sequenceOf(node));
                }
            }
            return lowest == Long.MAX_VALUE ? 0 : lowest;
        }

        @Override
        public boolean holds() {
            return selector.hasLeadership();
        }

        @Override
        public void release() throws Exception {
            synchronized (this) {
                letGo = true;
                notifyAll();
            }
            over.get(); // takeLeadership returned and the selector let go of its node
        }

        void close() {
            selector.close();
            thread.shutdownNow();
        }
    }
}
