import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;

/**
 * Curator's DistributedDoubleBarrier, unmodified, under zksim: nobody computes before every
 * process entered, nobody leaves before all finished.
 *
 * <p>Run by {@code zksim serve DOUBLE-BARRIER-SCENARIO -- java CuratorDoubleBarrier CLIENTS [ROUNDS
 * [STEP_MS]]}. The double barrier's workload (zksim's workload/doublebarrier.go): in each round,
 * on a fresh barrier node (/zksim/double-barrier/r1, r2, ...: a double barrier serves one round),
 * every process enters, computes, and leaves; process i computes for STEP_MS × (1 + (i+round) mod
 * CLIENTS), so that they finish one after another, and a different one last in each round. The
 * barrier waits for every client. Recorded: enter and leave, one for each call (failed, with
 * the error, when it threw, and the process calls again). zksim judges them with the double
 * barrier's checks.
 */
public final class CuratorDoubleBarrier {
    private static final int MAX_FAILURES = 20;

    public static void main(String[] args) throws Exception {
        int clients = CuratorHolders.arg(args, 0, 5);
        int rounds = CuratorHolders.arg(args, 1, 3);
        long step = CuratorHolders.arg(args, 2, 10);
        CuratorClients.run(clients, c -> {
            for (int round = 0; round < rounds; round++) {
                String path = "/zksim/double-barrier/r" + (round + 1);
                DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(c.curator, path, clients);
                step(c, "enter", path, barrier::enter);
                CuratorClients.sleep(step * (1 + (c.index + round) % clients));
                step(c, "leave", path, barrier::leave);
            }
        });
    }

    /** A step of the barrier, recorded, called until it returns. */
    private interface Step {
        void run() throws Exception;
    }

    private static void step(CuratorClients.Client c, String kind, String path, Step step) throws Exception {
        for (int failures = 0; ; ) {
            long op = c.rec.call(kind, path);
            try {
                step.run();
                c.rec.ret(op, "ok");
                return;
            } catch (Exception e) {
                c.rec.ret(op, "failed", e); // and calls again
                if (++failures >= MAX_FAILURES) {
                    throw e;
                }
            }
        }
    }
}
