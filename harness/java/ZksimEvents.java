import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;

/**
 * Recipe events for zksim: what a client believed, recorded as it happened.
 *
 * <p>A client run by {@code zksim serve SCENARIO -- COMMAND} finds the simulated ensemble in
 * ZKSIM_CONNECT and this recorder's socket in ZKSIM_EVENTS. It records each operation's call
 * before it calls the recipe and its return after; zksim answers each line before the client
 * goes on, so the history zksim judges holds the operations in the order they happened, on the
 * simulated ensemble's clock. The protocol is documented in zksim's serve/events.go.
 *
 * <pre>
 * ZksimEvents rec = new ZksimEvents(() -&gt; client.getZookeeperClient().getZooKeeper().getSessionId());
 * long op = rec.call("acquire", "/zksim/lock");
 * mutex.acquire();
 * rec.ret(op, "ok");
 * </pre>
 */
public final class ZksimEvents implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;
    private final Writer out;
    private final LongSupplier session;
    private long last;

    /** Connects to ZKSIM_EVENTS; session gives the client's ZooKeeper session id. */
    public ZksimEvents(LongSupplier session) throws IOException {
        String addr = System.getenv("ZKSIM_EVENTS");
        int colon = addr.lastIndexOf(':');
        socket = new Socket(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1)));
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
        this.session = session;
    }

    /** The client's session, or while it has none the last it had. */
    private long sid() {
        long s;
        try {
            s = session.getAsLong();
        } catch (RuntimeException e) {
            s = 0;
        }
        if (s != 0) {
            last = s;
        }
        return last;
    }

    private synchronized String send(String line) throws IOException {
        out.write(line + "\n");
        out.flush();
        String answer = in.readLine();
        if (answer == null || answer.contains("\"error\"")) {
            throw new IOException("zksim refused a recipe event: " + answer);
        }
        return answer;
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Records the call of an operation; returns its id for ret. */
    public long call(String kind, String path) throws IOException {
        String answer = send("{\"call\":" + quote(kind) + ",\"session\":" + sid() + ",\"path\":" + quote(path) + "}");
        int i = answer.indexOf("\"id\":") + 5;
        int j = i;
        while (j < answer.length() && Character.isDigit(answer.charAt(j))) {
            j++;
        }
        return Long.parseLong(answer.substring(i, j));
    }

    /** Records the return of the operation id: ok, failed or unknown. */
    public void ret(long id, String result) throws IOException {
        send("{\"return\":" + id + ",\"result\":" + quote(result) + "}");
    }

    /** Records the return of the operation id, which failed with e. */
    public void ret(long id, String result, Throwable e) throws IOException {
        send("{\"return\":" + id + ",\"result\":" + quote(result) + ",\"error\":" + quote(String.valueOf(e)) + "}");
    }

    /** Records an operation of one instant (a use of the resource). */
    public void instant(String kind, String path) throws IOException {
        send("{\"instant\":" + quote(kind) + ",\"session\":" + sid() + ",\"path\":" + quote(path) + "}");
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
