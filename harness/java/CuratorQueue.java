import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;

/**
 * Curator's DistributedQueue, unmodified, under zksim: items taken in the order they were put,
 * each once.
 *
 * <p>Run by {@code zksim serve QUEUE-SCENARIO -- java CuratorQueue CLIENTS [ROUNDS [CONSUMERS]]}.
 * The queue's workload (zksim's workload/queue.go): the first CONSUMERS clients (default half)
 * take, the others put ROUNDS items each, "c3-1", "c3-2", ... (unique), 1 ms apart, with foreground
 * puts (putInBackground(false): a put returns once its item is in the queue). The consumers start
 * once every producer has put its items, so that they wait together; the last consumer, when
 * there are more, joins once the others have taken half of them; once they are taken each
 * producer puts two more, which the consumers wait for. A consumer stops once the producers are
 * done and every item surely put was taken (or nothing was put or taken for a bound).
 *
 * <p>Curator's consumer is called with each item (QueueConsumer.consumeMessage), after the queue
 * deleted its node: a take is recorded from the moment the consumer is ready for an item (the
 * queue started, or its last item consumed) to the call that hands it the next, its out the
 * item; one still open when the consumer stops took nothing (failed). A put is ok, or unknown,
 * with the error, when put threw (the item may be in the queue or not: it is not put again).
 * zksim judges them with the queue's checks.
 */
public final class CuratorQueue {
    private static final String PATH = "/zksim/queue";
    /** How many items more each producer puts once the consumers have taken the first ones. */
    private static final int LATE = 2;
    /** How long without a put or a take before the consumers stop: zksim's bound and a second. */
    private static final long GIVE_UP_MS = 3 * CuratorClients.SESSION_MS + 1000;

    private static final QueueSerializer<String> TEXT = new QueueSerializer<String>() {
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    /** What the clients know of each other (zksim's queueCounts), shared as threads of one JVM. */
    private static final class Counts {
        int producing;
        int attempted;
        int took;
        long progress = System.currentTimeMillis();
        final Set<String> waiting = new HashSet<>();

        synchronized void put(String item, boolean ok) {
            if (ok) {
                waiting.add(item);
            }
            attempted++;
            progressed();
        }

        synchronized void taken(String item) {
            waiting.remove(item);
            took++;
            progressed();
        }

        synchronized void progressed() {
            progress = System.currentTimeMillis();
            notifyAll();
        }

        synchronized boolean done() {
            return producing == 0 && (waiting.isEmpty() || System.currentTimeMillis() - progress > GIVE_UP_MS);
        }

        synchronized void producerDone() {
            producing--;
            notifyAll();
        }

        /** Waits until ready says go, looking again at least every 100 ms. */
        synchronized void await(java.util.function.BooleanSupplier ready) throws InterruptedException {
            while (!ready.getAsBoolean()) {
                wait(100);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int clients = CuratorHolders.arg(args, 0, 4);
        int rounds = CuratorHolders.arg(args, 1, 8);
        int consumers = Math.min(Math.max(CuratorHolders.arg(args, 2, clients / 2), 1), clients - 1);
        Counts counts = new Counts();
        counts.producing = clients - consumers;
        int backlog = counts.producing * rounds;
        CuratorClients.run(clients, c -> {
            if (c.index < consumers) {
                boolean late = consumers > 1 && c.index == consumers - 1;
                consume(c, counts, backlog, late);
            } else {
                produce(c, counts, rounds);
            }
        });
    }

    /** A producer: ROUNDS items, then, once they are taken, LATE more. */
    private static void produce(CuratorClients.Client c, Counts counts, int rounds) throws Exception {
        DistributedQueue<String> queue = QueueBuilder.builder(c.curator, null, TEXT, PATH).putInBackground(false)
                .buildQueue();
        queue.start();
        try {
            int k = 0;
            for (; k < rounds; k++) {
                put(c, queue, counts, k);
            }
            counts.await(() -> counts.waiting.isEmpty() || System.currentTimeMillis() - counts.progress > 1000);
            for (int last = k + LATE; k < last; k++) {
                put(c, queue, counts, k);
            }
        } finally {
            counts.producerDone();
            queue.close();
        }
    }

    private static void put(CuratorClients.Client c, DistributedQueue<String> queue, Counts counts, int k)
            throws Exception {
        String item = c.name + "-" + (k + 1);
        long op = c.rec.call("put", PATH, "data", item);
        boolean ok = false;
        try {
            queue.put(item);
            c.rec.ret(op, "ok");
            ok = true;
        } catch (Exception e) {
            c.rec.ret(op, "unknown", e); // it may be in the queue or not; not put again
        }
        counts.put(item, ok);
        CuratorClients.sleep(1);
    }

    /** A consumer: once the backlog is put (and, late, half taken), it takes until done. */
    private static void consume(CuratorClients.Client c, Counts counts, int backlog, boolean late) throws Exception {
        counts.await(() -> (counts.producing == 0 || counts.attempted >= backlog)
                && (!late || counts.took >= backlog / 2 || counts.done()));
        Taker taker = new Taker(c, counts);
        DistributedQueue<String> queue = QueueBuilder.builder(c.curator, taker, TEXT, PATH).buildQueue();
        taker.ready();
        queue.start();
        counts.await(counts::done);
        queue.close();
        taker.stop();
    }

    /** A consumer's takes: one open from when it is ready for an item to when it gets one. */
    private static final class Taker implements QueueConsumer<String> {
        private final CuratorClients.Client c;
        private final Counts counts;
        private long open = -1;
        private boolean stopped;

        Taker(CuratorClients.Client c, Counts counts) {
            this.c = c;
            this.counts = counts;
        }

        /** The consumer is ready for an item: a take is under way. */
        synchronized void ready() throws Exception {
            open = c.rec.call("take", PATH);
        }

        @Override
        public void consumeMessage(String item) throws Exception {
            synchronized (this) {
                if (open < 0) { // an item handed over once the consumer had stopped: taken all the same
                    open = c.rec.call("take", PATH);
                }
                c.rec.ret(open, "ok", "out", item);
                open = -1;
            }
            counts.taken(item);
            CuratorClients.sleep(1);
            synchronized (this) {
                if (!stopped && !counts.done()) {
                    ready();
                }
            }
        }

        /** The consumer stopped: a take still open took nothing. */
        synchronized void stop() throws Exception {
            stopped = true;
            if (open >= 0) {
                c.rec.ret(open, "failed", "error", "the consumer stopped: the producers were done and the items put taken");
                open = -1;
            }
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState newState) {}
    }
}
