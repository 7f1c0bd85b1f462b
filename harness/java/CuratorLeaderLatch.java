import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.leader.LeaderLatch;

/**
 * Curator's LeaderLatch, unmodified, under zksim: at most one leader at a time.
 *
 * <p>Run by {@code zksim serve ELECTION-SCENARIO -- java CuratorLeaderLatch CLIENTS [ROUNDS [STEPS
 * [STEP_MS [fenced]]]]}. Each round a client starts a latch, awaits leadership, leads for STEPS steps while
 * the latch says it has leadership, and closes the latch; in some rounds it gives up waiting
 * after one tenure and closes it (zksim's election workload, CuratorHolders). Its token is its
 * latch node's sequence number. zksim judges them with the election's checks.
 */
public final class CuratorLeaderLatch {
    private static final String PATH = "/zksim/election";

    public static void main(String[] args) throws Exception {
        CuratorHolders.Shape shape = CuratorHolders.Shape.of(args, 1);
        CuratorClients.run(CuratorHolders.arg(args, 0, 5), c -> {
            LeaderLatch[] latch = new LeaderLatch[1];
            CuratorHolders.hold(c, PATH, shape, false, true, new CuratorHolders.Holder() {
                public Long acquire(long waitMs) throws Exception {
                    latch[0] = new LeaderLatch(c.curator, PATH, c.name);
                    latch[0].start();
                    boolean leads;
                    try {
                        leads = waitMs > 0 ? latch[0].await(waitMs, TimeUnit.MILLISECONDS) : await(latch[0]);
                    } catch (Exception e) {
                        latch[0].close();
                        throw e;
                    }
                    if (!leads) {
                        latch[0].close(); // the candidate goes
                        return null;
                    }
                    return CuratorClients.sequenceOf(latch[0].getOurPath());
                }

                public boolean holds() {
                    return latch[0].hasLeadership();
                }

                public void release() throws Exception {
                    latch[0].close();
                }
            });
        });
    }

    private static boolean await(LeaderLatch latch) throws Exception {
        latch.await();
        return true;
    }
}
