import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;

/**
 * Curator's SharedCount, unmodified, under zksim: every add counted once.
 *
 * <p>Run by {@code zksim serve COUNTER-SCENARIO -- java CuratorSharedCount CLIENTS [ROUNDS
 * [THINK_MS]]}, the counter's workload (CuratorCounters). An add is trySetCount with versions,
 * until one takes: the value the client last knew, and the value plus the delta. A count is the
 * value the client knows, once a trySetCount of that same value at its version took: SharedCount's
 * getCount is the value its watch last brought, which may be older than an add that returned
 * elsewhere, and zksim's counter check asks a count to be no older than that. zksim judges them
 * with the counter's checks.
 */
public final class CuratorSharedCount {
    public static void main(String[] args) throws Exception {
        int rounds = CuratorHolders.arg(args, 1, 4);
        long think = CuratorHolders.arg(args, 2, 10);
        CuratorClients.run(CuratorHolders.arg(args, 0, 4), c -> {
            SharedCount count = new SharedCount(c.curator, CuratorCounters.PATH, 0);
            count.start();
            try {
                CuratorCounters.count(c, rounds, think, new CuratorCounters.Counter() {
                    public Long add(long delta) throws Exception {
                        return set(count, delta);
                    }

                    public long count() throws Exception {
                        return set(count, 0);
                    }
                });
            } finally {
                count.close();
            }
        });
    }

    /** Sets the count to the value it has plus delta, with versions, until a set takes. */
    private static long set(SharedCount count, long delta) throws Exception {
        for (;;) {
            VersionedValue<Integer> v = count.getVersionedValue();
            int next = v.getValue() + (int) delta;
            if (count.trySetCount(v, next)) {
                return next;
            }
        }
    }
}
