import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * Curator's InterProcessSemaphoreV2, unmodified, under zksim: at most LEASES clients hold a lease
 * at once.
 *
 * <p>Run by {@code zksim serve SEMAPHORE-SCENARIO -- java CuratorSemaphore CLIENTS LEASES [ROUNDS
 * [STEPS [STEP_MS]]]}, LEASES the scenario's size. The clients take turns holding leases as
 * zksim's semaphore workload does (CuratorHolders), recorded on the directory of the lease nodes,
 * whose deletions are the releases zksim's herd check counts; a lease's token is its node's
 * sequence number. zksim judges them with the semaphore's checks.
 */
public final class CuratorSemaphore {
    private static final String PATH = "/zksim/semaphore";

    public static void main(String[] args) throws Exception {
        int leases = CuratorHolders.arg(args, 1, 2);
        CuratorHolders.Shape shape = CuratorHolders.Shape.of(args, 2);
        CuratorClients.run(CuratorHolders.arg(args, 0, 5), c -> {
            InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(c.curator, PATH, leases);
            Lease[] held = new Lease[1];
            CuratorHolders.hold(c, PATH + "/leases", shape, false, false, new CuratorHolders.Holder() {
                public Long acquire(long waitMs) throws Exception {
                    held[0] = semaphore.acquire();
                    return CuratorClients.sequenceOf(held[0].getNodeName());
                }

                public boolean holds() {
                    return true;
                }

                public void release() throws Exception {
                    held[0].close();
                }
            });
        });
    }
}
