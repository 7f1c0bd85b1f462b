import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Curator's InterProcessMutex, unmodified, under zksim: take it, use what it protects, let go.
 *
 * <p>Run by {@code zksim serve SCENARIO -- java CuratorMutex [ROUNDS [HOLD_MS [STEP_MS
 * [careful]]]]}, one process per client. Each round records an acquire, a use every STEP_MS while
 * it holds the lock for HOLD_MS, and a release (ZksimEvents); zksim judges them with the lock's
 * checks.
 *
 * <p>A careful holder does what Curator's documentation of its locks asks: it adds a
 * ConnectionStateListener and, once SUSPENDED or LOST is reported while it holds, no longer uses
 * what the lock protects (it releases the lock at once).
 */
public final class CuratorMutex {
    private static final String PATH = "/zksim/lock";

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        long hold = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        long step = args.length > 2 ? Long.parseLong(args[2]) : 250;
        CuratorFramework client = CuratorFrameworkFactory.newClient(System.getenv("ZKSIM_CONNECT"),
                new ExponentialBackoffRetry(100, 5));
        client.start();
        client.blockUntilConnected();
        InterProcessMutex mutex = new InterProcessMutex(client, PATH);
        AtomicBoolean lost = new AtomicBoolean();
        boolean careful = args.length > 3 && args[3].equals("careful");
        if (careful) {
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                    lost.set(true);
                }
            });
        }
        try (ZksimEvents rec = new ZksimEvents(() -> sessionOf(client))) {
            for (int r = 0; r < rounds; r++) {
                long op = rec.call("acquire", PATH);
                try {
                    mutex.acquire();
                } catch (Exception e) {
                    rec.ret(op, "failed", e);
                    continue;
                }
                rec.ret(op, "ok");
                lost.set(false); // granted: the session was up
                for (long held = 0; held < hold; held += step) {
                    Thread.sleep(step);
                    if (careful && lost.get()) {
                        break; // it may have lost the lock: stop using what it protects
                    }
                    rec.instant("use", PATH);
                }
                long rel = rec.call("release", PATH);
                try {
                    mutex.release();
                    rec.ret(rel, "ok");
                } catch (Exception e) {
                    rec.ret(rel, "failed", e);
                }
            }
        }
        client.close();
    }

    private static long sessionOf(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }
}
