import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.admin.ZooKeeperAdmin;

/**
 * The clients of one Curator recipe under zksim, as threads of one JVM (a JVM is slow to start),
 * or one of them alone (ZKSIM_CLIENT).
 *
 * <p>Each client has its own CuratorFramework, so its own ZooKeeper session, and its own
 * recorder (ZksimEvents). They connect one after another, so that client i is the one zksim
 * names c(i+1), and then run together, each its body in a thread of its own. The program exits
 * with status 1 when a body threw, after the others have finished.
 *
 * <p>Sessions ask for zksim's default session timeout (SESSION_MS), the one a served run is
 * judged with (its liveness bounds allow for a session that lingers that long).
 */
public final class CuratorClients {
    /** The session timeout the clients ask for: zksim's default (client.DefaultSessionTimeout). */
    public static final int SESSION_MS = 10_000;

    /** What one client does. */
    public interface Body {
        void run(Client c) throws Exception;
    }

    /** One client: its number, its CuratorFramework, its recorder. */
    public static final class Client {
        /** Its place, from 0: zksim names it c(index+1). */
        public final int index;
        /** Its name as zksim's faults and reports give it: c1, c2, ... */
        public final String name;
        public final CuratorFramework curator;
        public final ZksimEvents rec;
        private final AtomicLong disruptions = new AtomicLong();
        private final AtomicBoolean crashed;

        private Client(int index, CuratorFramework curator, AtomicBoolean crashed) throws IOException {
            this.index = index;
            this.name = "c" + (index + 1);
            this.curator = curator;
            this.crashed = crashed;
            curator.getConnectionStateListenable().addListener((cf, state) -> {
                if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                    disruptions.incrementAndGet();
                }
            });
            this.rec = new ZksimEvents(() -> sessionOf(curator));
        }

        /**
         * A mark of the connection's history, for steady: a holder takes one when it is granted
         * what it holds.
         */
        public long mark() {
            return disruptions.get();
        }

        /**
         * Whether the connection stayed up since mark (no SUSPENDED, no LOST): a careful holder
         * goes on acting on what it holds only while it has, as Curator's documentation asks
         * ("Error handling": a lock may be lost once the connection is suspended).
         */
        public boolean steady(long mark) {
            return disruptions.get() == mark && curator.getZookeeperClient().isConnected();
        }

        /**
         * The process stops for good, as a crashed one does: its connection goes without a
         * closeSession, so the servers expire its session after its timeout and its ephemeral
         * nodes with it, and it never opens another.
         */
        public void crash() throws Exception {
            crashed.set(true);
            curator.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        }

        /** Whether crash was called. */
        public boolean crashed() {
            return crashed.get();
        }
    }

    /** The client's ZooKeeper session id, 0 while it has none. */
    private static long sessionOf(CuratorFramework curator) {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * Connects n clients to ZKSIM_CONNECT, in order, and runs body in each; exits 1 if one threw.
     * With ZKSIM_CLIENT=k set, this JVM runs client k alone (index k-1, its role among the n as
     * ever): a launcher that starts one JVM per client lets zksim's "pause ck" stop that client
     * alone, as a collection pause stops one process.
     */
    public static void run(int n, Body body) throws Exception {
        int from = 0;
        int to = n;
        String one = System.getenv("ZKSIM_CLIENT");
        if (one != null) {
            from = Integer.parseInt(one) - 1;
            to = from + 1;
        }
        List<Client> clients = new ArrayList<>();
        for (int i = from; i < to; i++) {
            AtomicBoolean crashed = new AtomicBoolean();
            CuratorFramework curator = CuratorFrameworkFactory.builder()
                    .connectString(System.getenv("ZKSIM_CONNECT"))
                    .sessionTimeoutMs(SESSION_MS)
                    .retryPolicy(new ExponentialBackoffRetry(100, 10, 1000))
                    .zookeeperFactory((connect, timeout, watcher, readOnly) -> {
                        if (crashed.get()) {
                            throw new IOException("the process crashed");
                        }
                        return new ZooKeeperAdmin(connect, timeout, watcher, readOnly);
                    })
                    .build();
            curator.start();
            curator.blockUntilConnected();
            clients.add(new Client(i, curator, crashed));
        }
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean failed = new AtomicBoolean();
        for (Client c : clients) {
            Thread t = new Thread(() -> {
                try {
                    body.run(c);
                } catch (Throwable e) {
                    System.err.println(c.name + ": " + e);
                    e.printStackTrace();
                    failed.set(true);
                }
            }, c.name);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        for (Client c : clients) {
            c.rec.close();
            if (!c.crashed()) {
                c.curator.close();
            }
        }
        System.exit(failed.get() ? 1 : 0);
    }

    /** Sleeps ms milliseconds. */
    public static void sleep(long ms) throws InterruptedException {
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    /** The sequence number ZooKeeper appended to a sequential node's name (its last ten digits). */
    public static long sequenceOf(String node) {
        return Long.parseLong(node.substring(node.length() - 10));
    }

    private CuratorClients() {}
}
