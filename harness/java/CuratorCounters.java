/**
 * The shared counter's workload (zksim's workload/counter.go), for Curator's counters: every
 * client, named cN, makes ROUNDS adds, all clients starting together so that they contend: in
 * round k it adds 1 when k is odd, 10·N when k is even (c1 adds 10, c2 20, ...), so that the
 * values the adds make tell a lost increment from one applied twice, and whose it was. THINK_MS
 * after each add it reads the counter, and THINK_MS after that it makes the next.
 *
 * <p>Recorded: add (its data the delta; ok, its out the value the add made; failed when the
 * counter says it did not add; unknown, with the error, when it threw: it may have added or
 * not, and the client goes on without adding again, as a retry would be another increment) and
 * count (its out the value read; failed, with the error, when it threw, and the client reads
 * again).
 */
public final class CuratorCounters {
    /** The counter's node. */
    public static final String PATH = "/zksim/counter";

    /** One client's counter, as a recipe gives it. */
    public interface Counter {
        /** Adds delta and returns the value the add made, or null when the counter did not add. */
        Long add(long delta) throws Exception;

        /** Reads the counter's value, no older than any add that returned before the call. */
        long count() throws Exception;
    }

    /** Client c's rounds of adds and counts on counter. */
    public static void count(CuratorClients.Client c, int rounds, long thinkMs, Counter counter) throws Exception {
        ZksimEvents rec = c.rec;
        for (int k = 1; k <= rounds; k++) {
            long delta = k % 2 == 1 ? 1 : 10L * (c.index + 1);
            long op = rec.call("add", PATH, "data", Long.toString(delta));
            try {
                Long v = counter.add(delta);
                if (v == null) {
                    rec.ret(op, "failed", "error", "the counter did not add");
                } else {
                    rec.ret(op, "ok", "out", Long.toString(v));
                }
            } catch (Exception e) {
                rec.ret(op, "unknown", e);
            }
            CuratorClients.sleep(thinkMs);
            for (int tries = 0; ; tries++) {
                long read = rec.call("count", PATH);
                try {
                    rec.ret(read, "ok", "out", Long.toString(counter.count()));
                    break;
                } catch (Exception e) {
                    rec.ret(read, "failed", e); // it read nothing; the client reads again
                    if (tries >= 20) {
                        throw e;
                    }
                }
            }
            CuratorClients.sleep(thinkMs);
        }
    }

    private CuratorCounters() {}
}
