package sharechaos.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The worker config the orchestrator writes (Go's ctp.WorkerConfig, as JSON):
 * the same file the Go worker reads. Fields the Java worker has no use for
 * (consumer, the native realization's API keys and member tags) are read and
 * ignored; a field it cannot honour is an error naming it.
 */
final class WorkerConfig {
    static final String IMPLICIT = "implicit";
    static final String EXPLICIT = "explicit";
    static final String TRANSACTIONAL = "transactional";
    static final String LEDGER = "ledger";
    static final String NATIVE = "native";

    List<String> bootstrap = new ArrayList<>();
    String group = "";
    String inputTopic = "";
    String outputTopic = "";
    String ledgerTopic = "";
    String transactionalId = "";
    String mode = "";
    String realization = "";
    int slot;
    int incarnation;
    String historyPath = "";
    int maxRecords;
    Duration txnTimeout = Duration.ZERO;
    Duration deliveryTimeout = Duration.ZERO;
    Duration requestTimeout = Duration.ZERO;
    Arm arm = Arm.NONE;
    ClientSecurity client = new ClientSecurity();
    /** Renews a stalled batch's locks (KIP-1222); null: never. */
    Renew renew;
    /** Names the inputs the worker cannot process; null: none. */
    Poison poison;
    /** Steps paced from stdin ({@link Stepped}), not a free-running loop. */
    boolean stepped;

    /** Reads and parses the config file, with Go's defaults (ctp.WorkerConfig.defaults). */
    static WorkerConfig read(Path path) throws IOException {
        return parse(new String(Files.readAllBytes(path), StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    static WorkerConfig parse(String json) {
        Object root = Json.parse(json);
        if (!(root instanceof Map)) {
            throw new IllegalArgumentException("worker config: want a JSON object");
        }
        Map<String, Object> m = (Map<String, Object>) root;
        WorkerConfig c = new WorkerConfig();
        Object bs = m.get("bootstrap");
        if (bs instanceof List) {
            for (Object o : (List<Object>) bs) {
                c.bootstrap.add(String.valueOf(o));
            }
        }
        c.group = str(m, "group");
        c.inputTopic = str(m, "input_topic");
        c.outputTopic = str(m, "output_topic");
        c.ledgerTopic = str(m, "ledger_topic");
        c.transactionalId = str(m, "transactional_id");
        c.mode = str(m, "mode");
        c.realization = str(m, "realization");
        c.slot = (int) num(m, "slot");
        c.incarnation = (int) num(m, "incarnation");
        c.historyPath = str(m, "history_path");
        c.maxRecords = (int) num(m, "max_records");
        c.txnTimeout = dur(m, "txn_timeout");
        c.deliveryTimeout = dur(m, "delivery_timeout");
        c.requestTimeout = dur(m, "request_timeout");
        c.stepped = Boolean.TRUE.equals(m.get("stepped"));
        Object arm = m.get("arm");
        if (arm instanceof Map) {
            Map<String, Object> a = (Map<String, Object>) arm;
            c.arm = new Arm(str(a, "fault"), str(a, "point"), str(a, "action"), (int) num(a, "batch"), dur(a, "stall"));
        }
        Object renew = m.get("renew");
        if (renew instanceof Map) {
            Map<String, Object> r = (Map<String, Object>) renew;
            c.renew = new Renew(dur(r, "every"), dur(r, "lock"));
        }
        Object poison = m.get("poison");
        if (poison instanceof Map) {
            Map<String, Object> q = (Map<String, Object>) poison;
            c.poison = new Poison((int) num(q, "every"), (int) num(q, "offset"));
        }
        Object cl = m.get("client");
        if (cl instanceof Map) {
            Map<String, Object> s = (Map<String, Object>) cl;
            c.client.protocol = str(s, "security_protocol");
            c.client.mechanism = str(s, "sasl_mechanism");
            c.client.username = str(s, "sasl_username");
            c.client.caFile = str(s, "ssl_ca_file");
            c.client.certFile = str(s, "ssl_cert_file");
            c.client.keyFile = str(s, "ssl_key_file");
            c.client.skipHostnameCheck = Boolean.TRUE.equals(s.get("ssl_skip_hostname_check"));
        }
        c.defaults();
        return c;
    }

    private static String str(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? "" : String.valueOf(v);
    }

    private static long num(Map<String, Object> m, String k) {
        Object v = m.get(k);
        if (v == null) {
            return 0;
        }
        if (v instanceof Long) {
            return (Long) v;
        }
        if (v instanceof Double) {
            return (long) (double) (Double) v;
        }
        throw new IllegalArgumentException("worker config: " + k + " is not a number");
    }

    private static Duration dur(Map<String, Object> m, String k) {
        Object v = m.get(k);
        if (v == null) {
            return Duration.ZERO;
        }
        if (!(v instanceof String)) {
            throw new IllegalArgumentException("worker config: " + k + " is not a duration string");
        }
        return GoDuration.parse((String) v);
    }

    /** ctp.WorkerConfig.defaults: the timeouts a zero field leaves to the worker. */
    private void defaults() {
        if (txnTimeout.isZero()) {
            txnTimeout = Duration.ofSeconds(10);
        }
        if (deliveryTimeout.isZero()) {
            deliveryTimeout = Duration.ofSeconds(20);
        }
        if (requestTimeout.isZero()) {
            requestTimeout = Duration.ofSeconds(30);
        }
    }

    /** slot.incarnation, e.g. "w2.1" (ctp.WorkerName). */
    String name() {
        return "w" + slot + "." + incarnation;
    }

    /** Names every missing or wrong field; empty when the config can run. */
    List<String> problems() {
        List<String> p = new ArrayList<>();
        if (bootstrap.isEmpty()) {
            p.add("bootstrap is empty");
        }
        for (String[] f : new String[][] {{"group", group}, {"input_topic", inputTopic}, {"output_topic", outputTopic},
                {"transactional_id", transactionalId}, {"history_path", historyPath}}) {
            if (f[1].isEmpty()) {
                p.add(f[0] + " is empty");
            }
        }
        switch (mode) {
            case IMPLICIT:
            case EXPLICIT:
                break;
            case TRANSACTIONAL:
                if (NATIVE.equals(realization)) {
                    p.add("realization \"native\": the Java worker runs the transactional mode through the ledger only "
                            + "(Kafka's Java clients have no KIP-1289 API yet); run it with --txn-acks ledger");
                } else if (!LEDGER.equals(realization)) {
                    p.add("realization \"" + realization + "\": want ledger");
                } else if (ledgerTopic.isEmpty()) {
                    p.add("ledger_topic is empty (the ledger realization needs it)");
                }
                break;
            default:
                p.add("mode \"" + mode + "\": want implicit, explicit or transactional");
        }
        if (maxRecords <= 0) {
            p.add("max_records " + maxRecords + ": want > 0");
        }
        if (!arm.action.isEmpty() && !Arm.ACTIONS.contains(arm.action)) {
            p.add("arm action \"" + arm.action + "\": unknown to the Java worker");
        }
        if (IMPLICIT.equals(mode)) {
            // Kafka's share consumer in implicit mode refuses every
            // acknowledge call ("Implicit acknowledgement of delivery is
            // being used"): it can neither RENEW nor RELEASE a poison record.
            if (renew != null) {
                p.add("renew in implicit mode: Kafka's share consumer acknowledges nothing itself there, RENEW neither");
            }
            if (poison != null) {
                p.add("poison in implicit mode: Kafka's share consumer acknowledges nothing itself there, it cannot RELEASE a record");
            }
        }
        p.addAll(client.problems());
        return p;
    }
}
