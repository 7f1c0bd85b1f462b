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
    private long first;

    /** Connects to ZKSIM_EVENTS; session gives the client's ZooKeeper session id. */
    public ZksimEvents(LongSupplier session) throws IOException {
        String addr = System.getenv("ZKSIM_EVENTS");
        int colon = addr.lastIndexOf(':');
        socket = new Socket(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1)));
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
        this.session = session;
    }

    /**
     * The client's first session: every line names it. zksim names each new session a new
     * client (cN), since the servers cannot tell whose it is; the recorder can: a client whose
     * session expired and that opened another is still the one process, believing what it
     * believed, and its operations stay one client's (an acquire called in its first session and
     * returned in the next, the uses and the release after it).
     */
    private long sid() {
        if (first == 0) {
            try {
                first = session.getAsLong();
            } catch (RuntimeException e) {
                first = 0;
            }
        }
        return first;
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

    /** s as a JSON string. */
    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /**
     * A line's fields, names and values in turn: a String is written quoted, a number or a
     * boolean as it is; a null, a 0 or a false is left out, as zksim reads a missing field.
     */
    private static String fields(Object... kv) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            Object v = kv[i + 1];
            if (v == null || Boolean.FALSE.equals(v) || (v instanceof Number && ((Number) v).longValue() == 0)) {
                continue;
            }
            b.append(',').append(quote(String.valueOf(kv[i]))).append(':');
            b.append(v instanceof String ? quote((String) v) : String.valueOf(v));
        }
        return b.toString();
    }

    /**
     * Records the call of an operation, with more of its fields if it has them ("data", the
     * item or the delta or the member; "token"; "shared", for a read lock); returns its id for
     * ret.
     */
    public long call(String kind, String path, Object... more) throws IOException {
        String answer = send("{\"call\":" + quote(kind) + ",\"session\":" + sid() + ",\"path\":" + quote(path)
                + fields(more) + "}");
        int i = answer.indexOf("\"id\":") + 5;
        int j = i;
        while (j < answer.length() && Character.isDigit(answer.charAt(j))) {
            j++;
        }
        return Long.parseLong(answer.substring(i, j));
    }

    /**
     * Records the return of the operation id: ok, failed or unknown, with more of its fields if
     * it has them ("out", what it read or took or made; "token", the fencing token granted; "as",
     * what the call turned out to be: "withdraw" for a candidate's wait given up).
     */
    public void ret(long id, String result, Object... more) throws IOException {
        send("{\"return\":" + id + ",\"result\":" + quote(result) + fields(more) + "}");
    }

    /** Records the return of the operation id, which ended with e: failed, or unknown. */
    public void ret(long id, String result, Throwable e) throws IOException {
        ret(id, result, "error", String.valueOf(e));
    }

    /**
     * Records an operation of one instant (a use of the resource, with its "token"; a view of a
     * group, with its "out"; a process's failure, with its "data"), ok unless a "result" says
     * otherwise.
     */
    public void instant(String kind, String path, Object... more) throws IOException {
        send("{\"instant\":" + quote(kind) + ",\"session\":" + sid() + ",\"path\":" + quote(path) + fields(more)
                + "}");
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
