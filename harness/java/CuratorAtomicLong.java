import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Curator's DistributedAtomicLong, unmodified, under zksim: every add counted once.
 *
 * <p>Run by {@code zksim serve COUNTER-SCENARIO -- java CuratorAtomicLong CLIENTS [ROUNDS
 * [THINK_MS]]}, the counter's workload (CuratorCounters). An add is add(delta): its value made
 * when it succeeded, failed when it did not (its optimistic tries ran out). A count brings the
 * client's server up to date first (a multi of one check of the root: a write, ordered after
 * every earlier commit), then get(): a plain read may be older than an add that returned
 * elsewhere, and zksim's counter check asks a count to be no older than that; zksim's own counter
 * does the same. zksim judges them with the counter's checks.
 */
public final class CuratorAtomicLong {
    public static void main(String[] args) throws Exception {
        int rounds = CuratorHolders.arg(args, 1, 4);
        long think = CuratorHolders.arg(args, 2, 10);
        CuratorClients.run(CuratorHolders.arg(args, 0, 4), c -> {
            DistributedAtomicLong counter = new DistributedAtomicLong(c.curator, CuratorCounters.PATH,
                    new ExponentialBackoffRetry(10, 10, 200));
            CuratorCounters.count(c, rounds, think, new CuratorCounters.Counter() {
                public Long add(long delta) throws Exception {
                    AtomicValue<Long> v = counter.add(delta);
                    return v.succeeded() ? v.postValue() : null;
                }

                public long count() throws Exception {
                    upToDate(c.curator);
                    return counter.get().postValue();
                }
            });
        });
    }

    /** Has the client's server apply every write that returned to anyone before the call. */
    private static void upToDate(CuratorFramework curator) throws Exception {
        curator.transaction().forOperations(curator.transactionOp().check().forPath("/"));
    }
}
