import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;

/**
 * Curator's InterProcessReadWriteLock, unmodified, under zksim: readers share, a writer is alone.
 *
 * <p>Run by {@code zksim serve SHARED-LOCK-SCENARIO -- java CuratorReadWriteLock CLIENTS [ROUNDS
 * [STEPS [STEP_MS [READERS]]]]}. The first READERS clients (default: half, rounded up) take the
 * read lock, the others the write lock, in turns as zksim's shared-lock workload does
 * (CuratorHolders); zksim judges them with the shared lock's checks.
 */
public final class CuratorReadWriteLock {
    private static final String PATH = "/zksim/shared-lock";

    public static void main(String[] args) throws Exception {
        int clients = CuratorHolders.arg(args, 0, 5);
        CuratorHolders.Shape shape = CuratorHolders.Shape.of(args, 1);
        int readers = CuratorHolders.arg(args, 4, (clients + 1) / 2);
        CuratorClients.run(clients, c -> {
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c.curator, PATH);
            boolean reads = c.index < readers;
            InterProcessMutex lock = reads ? rw.readLock() : rw.writeLock();
            CuratorHolders.hold(c, PATH, shape, reads, false, new CuratorHolders.Holder() {
                public Long acquire(long waitMs) throws Exception {
                    lock.acquire();
                    return 0L;
                }

                public boolean holds() {
                    return lock.isOwnedByCurrentThread();
                }

                public void release() throws Exception {
                    lock.release();
                }
            });
        });
    }
}
