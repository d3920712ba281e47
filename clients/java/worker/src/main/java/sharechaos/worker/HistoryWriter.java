package sharechaos.worker;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Appends events to one JSONL history file, as Go's history.Recorder does:
 * each event is one write(2) of one whole line on a file opened with
 * O_APPEND, with no user-space buffer (FileOutputStream writes straight
 * through), so an event is in the kernel when {@link #record} returns and a
 * SIGKILL right after loses nothing.
 *
 * <p>No fsync, like the Go worker: what a history must survive is the death of
 * the worker process (the suite's faults), which leaves the page cache to the
 * kernel; an fsync per event would only guard against the machine itself
 * going down, and cost a disk flush per loop step.
 *
 * <p>The encoding is Go's encoding/json of history.Event byte for byte (field
 * order, omitempty, sorted attrs, HTML-safe string escapes), checked against a
 * golden file written by a Go test (internal/history/testdata).
 */
final class HistoryWriter implements AutoCloseable {
    private final FileOutputStream out;
    private final String worker;

    HistoryWriter(String path, String worker) throws IOException {
        this.out = new FileOutputStream(path, true);
        this.worker = worker;
    }

    /** Stamps e with the wall clock and the worker (unless set) and appends it. */
    synchronized void record(Event e) throws IOException {
        if (e.ts == 0) {
            Instant now = Instant.now();
            e.ts = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
        if (e.worker.isEmpty()) {
            e.worker = worker;
        }
        StringBuilder b = new StringBuilder(256);
        encode(b, e);
        b.append('\n');
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }

    /** Go's json.Marshal(history.Event). */
    static void encode(StringBuilder b, Event e) {
        b.append("{\"ts\":").append(e.ts);
        b.append(",\"worker\":");
        string(b, e.worker);
        b.append(",\"type\":");
        string(b, e.type);
        b.append(",\"f\":");
        string(b, e.f);
        if (e.txn != 0) {
            b.append(",\"txn\":").append(e.txn);
        }
        if (e.records != null && !e.records.isEmpty()) {
            b.append(",\"records\":[");
            for (int i = 0; i < e.records.size(); i++) {
                Event.Rec r = e.records.get(i);
                if (i > 0) {
                    b.append(',');
                }
                b.append("{\"id\":");
                string(b, r.id);
                b.append(",\"p\":").append(r.partition).append(",\"o\":").append(r.offset);
                if (r.delivery != 0) {
                    b.append(",\"dc\":").append(r.delivery);
                }
                b.append('}');
            }
            b.append(']');
        }
        if (e.ids != null && !e.ids.isEmpty()) {
            b.append(",\"ids\":[");
            List<String> ids = e.ids;
            for (int i = 0; i < ids.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                string(b, ids.get(i));
            }
            b.append(']');
        }
        opt(b, "ack", e.ack);
        opt(b, "error", e.error);
        if (e.durNs != 0) {
            b.append(",\"dur_ns\":").append(e.durNs);
        }
        if (e.txnNs != 0) {
            b.append(",\"txn_ns\":").append(e.txnNs);
        }
        opt(b, "fault", e.fault);
        opt(b, "point", e.point);
        opt(b, "realization", e.realization);
        if (e.attrs != null && !e.attrs.isEmpty()) {
            b.append(",\"attrs\":{");
            boolean first = true;
            for (Map.Entry<String, String> a : e.attrs.entrySet()) { // a TreeMap: sorted, as Go sorts map keys
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, a.getKey());
                b.append(':');
                string(b, a.getValue());
            }
            b.append('}');
        }
        b.append('}');
    }

    private static void opt(StringBuilder b, String name, String v) {
        if (v != null && !v.isEmpty()) {
            b.append(",\"").append(name).append("\":");
            string(b, v);
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * A JSON string as Go's encoding/json writes it: '"' and '\\' escaped,
     * \b \f \n \r \t short, other control characters and the HTML-unsafe
     * '<' '>' '&' as backslash-u00xx escapes, U+2028 and U+2029 as theirs, and
     * what is not valid Unicode (an unpaired surrogate) as U+FFFD's escape, the way Go
     * replaces invalid UTF-8.
     */
    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); continue;
                case '\\': b.append("\\\\"); continue;
                case '\b': b.append("\\b"); continue;
                case '\f': b.append("\\f"); continue;
                case '\n': b.append("\\n"); continue;
                case '\r': b.append("\\r"); continue;
                case '\t': b.append("\\t"); continue;
                case '<': case '>': case '&':
                    b.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    continue;
                case '\u2028': b.append("\\u2028"); continue;
                case '\u2029': b.append("\\u2029"); continue;
                default:
                    break;
            }
            if (c < 0x20) {
                b.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                b.append("\\ufffd");
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
