/**
 * The workload of the kinds whose clients take turns holding something (zksim's
 * workload/holding.go), for Curator's recipes: a semaphore's lease, a read or write lock, a
 * leadership.
 *
 * <p>Each client, c1 first and the others 5 ms apart, acquires ROUNDS times; while it holds, it
 * takes STEPS steps: it checks that it still holds (its connection stayed up since it was
 * granted, and the recipe says so where it can), works for STEP_MS, and uses the resource what
 * it holds protects, presenting its token. Then it releases. A candidate that withdraws gives up
 * waiting after one tenure (STEPS × STEP_MS) in one round in four after the first, a different
 * one per client, as zksim's election candidates do. With "fenced" (the scenario's workload is),
 * the resource is behind a fence, shared by the clients as threads of one JVM: it remembers the
 * highest token it accepted and refuses lower ones, and a holder refused stops acting.
 *
 * <p>Recorded: acquire (with the token, or failed, with the error; a wait given up returns "as"
 * a withdrawal, as zksim's election workload records one: the recipe took its node away, and
 * the candidate comes back next round), use, release (failed, with the error, when the recipe's
 * release threw: the holder let go all the same).
 */
public final class CuratorHolders {
    /** What a client holds in turn, as a recipe gives it. */
    public interface Holder {
        /**
         * Waits until the client holds, and returns its token (0 for none); with waitMs above 0,
         * gives up waiting after that long, goes (the recipe takes its node away) and returns null.
         */
        Long acquire(long waitMs) throws Exception;

        /** The recipe's own word that the client still holds (true when it has none). */
        boolean holds();

        /** Lets go. */
        void release() throws Exception;
    }

    /** How many acquires in a row may fail before the client gives up. */
    private static final int MAX_FAILURES = 20;

    /** The shape of the holders' workload: zksim's Rounds, Steps, Step and Fenced. */
    public static final class Shape {
        final int rounds;
        final int steps;
        final long stepMs;
        final boolean fenced;

        public Shape(int rounds, int steps, long stepMs, boolean fenced) {
            this.rounds = rounds;
            this.steps = steps;
            this.stepMs = stepMs;
            this.fenced = fenced;
        }

        /**
         * The shape from args, from first on: ROUNDS STEPS STEP_MS, each with its default, and
         * "fenced", last, for a resource behind a fence.
         */
        public static Shape of(String[] args, int first) {
            return new Shape(arg(args, first, 5), arg(args, first + 1, 3), arg(args, first + 2, 50),
                    java.util.Arrays.asList(args).contains("fenced"));
        }
    }

    /** args[i] as a number, or def (when it is missing, or the word "fenced"). */
    public static int arg(String[] args, int i, int def) {
        return args.length > i && !args[i].equals("fenced") ? Integer.parseInt(args[i]) : def;
    }

    /** The highest token the fence accepted, by path (zksim's runner.use). */
    private static final java.util.Map<String, Long> FENCE = new java.util.HashMap<>();

    /**
     * Client c uses the resource on path, presenting token: refused when it is behind a fence
     * that accepted a higher one. Recorded as it is decided, one use at a time.
     */
    private static boolean use(CuratorClients.Client c, String path, long token, boolean fenced) throws Exception {
        synchronized (FENCE) {
            long highest = FENCE.getOrDefault(path, 0L);
            boolean ok = !fenced || token >= highest;
            FENCE.put(path, Math.max(highest, token));
            c.rec.instant("use", path, "token", token, "result", ok ? null : "rejected");
            return ok;
        }
    }

    /**
     * Client c's rounds of holding h, on path (the object zksim judges: a lock's directory); shared
     * for a read lock; withdraws for an election's candidate.
     */
    public static void hold(CuratorClients.Client c, String path, Shape shape, boolean shared, boolean withdraws,
            Holder h) throws Exception {
        ZksimEvents rec = c.rec;
        CuratorClients.sleep(5L * c.index);
        int failures = 0;
        for (int round = 0; round < shape.rounds; ) {
            boolean gives = withdraws && round > 0 && (c.index + round) % 4 == 3;
            long a = rec.call("acquire", path, "shared", shared);
            Long token;
            try {
                token = h.acquire(gives ? shape.steps * shape.stepMs : 0);
            } catch (Exception e) {
                rec.ret(a, "failed", e); // it holds nothing, and tries again
                if (++failures >= MAX_FAILURES) {
                    throw e;
                }
                continue;
            }
            failures = 0;
            if (token == null) {
                rec.ret(a, "ok", "as", "withdraw"); // it went, and comes back next round
                round++;
                continue;
            }
            rec.ret(a, "ok", "token", token);
            long mark = c.mark();
            for (int s = 0; s < shape.steps; s++) {
                if (!c.steady(mark) || !h.holds()) {
                    break; // it may have lost what it holds: stop acting on it
                }
                CuratorClients.sleep(shape.stepMs);
                if (!use(c, path, token, shape.fenced)) {
                    break; // refused: someone holds a newer lease
                }
            }
            long rel = rec.call("release", path);
            try {
                h.release();
                rec.ret(rel, "ok");
            } catch (Exception e) {
                rec.ret(rel, "failed", e); // it let go all the same
            }
            round++;
        }
    }

    private CuratorHolders() {}
}
