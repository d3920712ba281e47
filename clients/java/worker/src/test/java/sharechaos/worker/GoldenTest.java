package sharechaos.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The Java worker against files the Go side writes (go test -update keeps
 * them current): the history encoding byte for byte, the worker config, the
 * ledger rule. The repository root is three levels above this project.
 */
class GoldenTest {
    static Path root() {
        return Path.of(System.getProperty("user.dir")).resolve("../../..").normalize();
    }

    /** Every line of internal/history/testdata/events.golden.jsonl, read and written again, is the same bytes. */
    @Test
    @SuppressWarnings("unchecked")
    void historyEncodingIsGos() throws Exception {
        List<String> lines = Files.readAllLines(root().resolve("internal/history/testdata/events.golden.jsonl"), StandardCharsets.UTF_8);
        assertFalse(lines.isEmpty());
        for (String line : lines) {
            Map<String, Object> m = (Map<String, Object>) Json.parse(line);
            Event e = new Event(str(m, "type"), str(m, "f"));
            e.ts = (Long) m.get("ts");
            e.worker = str(m, "worker");
            e.txn = m.containsKey("txn") ? (Long) m.get("txn") : 0;
            if (m.containsKey("records")) {
                List<Event.Rec> rs = new ArrayList<>();
                for (Object o : (List<Object>) m.get("records")) {
                    Map<String, Object> r = (Map<String, Object>) o;
                    rs.add(new Event.Rec(str(r, "id"), (int) (long) (Long) r.get("p"), (Long) r.get("o"),
                            r.containsKey("dc") ? (int) (long) (Long) r.get("dc") : 0));
                }
                e.records(rs);
            }
            if (m.containsKey("ids")) {
                List<String> ids = new ArrayList<>();
                for (Object o : (List<Object>) m.get("ids")) {
                    ids.add((String) o);
                }
                e.ids(ids);
            }
            e.ack(str(m, "ack")).error(str(m, "error")).fault(str(m, "fault"), str(m, "point")).realization(str(m, "realization"));
            e.durNs = m.containsKey("dur_ns") ? (Long) m.get("dur_ns") : 0;
            e.txnNs = m.containsKey("txn_ns") ? (Long) m.get("txn_ns") : 0;
            if (m.containsKey("attrs")) {
                for (Map.Entry<String, Object> a : ((Map<String, Object>) m.get("attrs")).entrySet()) {
                    e.attr(a.getKey(), (String) a.getValue());
                }
            }
            StringBuilder b = new StringBuilder();
            HistoryWriter.encode(b, e);
            assertEquals(line, b.toString());
        }
    }

    /** An event built the way the worker builds it encodes as Go's second golden line. */
    @Test
    void pollEventAsTheWorkerWritesIt() throws Exception {
        String want = Files.readAllLines(root().resolve("internal/history/testdata/events.golden.jsonl"), StandardCharsets.UTF_8).get(1);
        Event e = new Event(Event.OK, Event.POLL).records(List.of(new Event.Rec("r-000001", 0, 7, 1),
                new Event.Rec("r-000002", 3, 1L << 40, 0), new Event.Rec("r-000003", 2, 0, 10)));
        e.ts = 1700000000000000002L;
        e.worker = "w1.1";
        StringBuilder b = new StringBuilder();
        HistoryWriter.encode(b, e);
        assertEquals(want, b.toString());
    }

    /** The history file gets one whole line per event, appended. */
    @Test
    void writerAppendsLines() throws Exception {
        Path f = Files.createTempFile("history", ".jsonl");
        try (HistoryWriter w = new HistoryWriter(f.toString(), "w9.1")) {
            w.record(new Event(Event.INFO, Event.START).attr("b", "2").attr("a", "1"));
            w.record(new Event(Event.INFO, Event.STOP));
        }
        List<String> lines = Files.readAllLines(f);
        assertEquals(2, lines.size());
        assertTrue(lines.get(0).matches("\\{\"ts\":\\d+,\"worker\":\"w9.1\",\"type\":\"info\",\"f\":\"start\",\"attrs\":\\{\"a\":\"1\",\"b\":\"2\"}}"), lines.get(0));
    }

    /** workloads/ctp/testdata/worker_config.golden.json, as the orchestrator writes it, read field by field. */
    @Test
    void workerConfigAsGoWritesIt() throws Exception {
        WorkerConfig c = WorkerConfig.read(root().resolve("workloads/ctp/testdata/worker_config.golden.json"));
        assertEquals(List.of("127.0.0.1:9092", "127.0.0.1:9093"), c.bootstrap);
        assertEquals("sc-g", c.group);
        assertEquals("sc-in", c.inputTopic);
        assertEquals("sc-out", c.outputTopic);
        assertEquals("sc-ledger", c.ledgerTopic);
        assertEquals("sc-w2", c.transactionalId);
        assertEquals("transactional", c.mode);
        assertEquals("ledger", c.realization);
        assertEquals("w2.3", c.name());
        assertEquals("/tmp/h/w2.3.jsonl", c.historyPath);
        assertEquals(10, c.maxRecords);
        assertEquals(Duration.ofSeconds(10), c.txnTimeout);
        assertEquals(Duration.ofSeconds(5), c.deliveryTimeout);
        assertEquals(Duration.ofMillis(1500), c.requestTimeout);
        assertEquals("lock-expiry-during-txn", c.arm.fault);
        assertEquals(Arm.BEFORE_COMMIT, c.arm.point);
        assertEquals(Arm.STALL, c.arm.action);
        assertEquals(4, c.arm.batch);
        assertEquals(Duration.ofMillis(17500), c.arm.stall);
        assertTrue(c.arm.at(Arm.BEFORE_COMMIT, 4));
        assertFalse(c.arm.at(Arm.BEFORE_COMMIT, 3));
        assertEquals("SASL_SSL", c.client.protocol);
        assertEquals("SCRAM-SHA-512", c.client.mechanism);
        assertEquals("u", c.client.username);
        assertEquals("/ca.pem", c.client.caFile);
        assertTrue(c.client.skipHostnameCheck);
        assertEquals(Duration.ofSeconds(5), c.renew.every);
        assertEquals(Duration.ofSeconds(15), c.renew.lock);
        assertEquals(100, c.poison.every);
        assertEquals(7, c.poison.offset);
        assertEquals(List.of(), c.problems());
    }

    /** The same config in implicit mode: renew and poison are refused by name (Kafka's consumer acknowledges nothing there). */
    @Test
    void renewAndPoisonNeedAnExplicitConsumer() throws Exception {
        String text = new String(Files.readAllBytes(root().resolve("workloads/ctp/testdata/worker_config.golden.json")), StandardCharsets.UTF_8);
        WorkerConfig c = WorkerConfig.parse(text.replace("\"transactional\"", "\"implicit\""));
        List<String> p = c.problems();
        assertEquals(2, p.size(), p.toString());
        assertTrue(p.get(0).startsWith("renew in implicit mode"), p.toString());
        assertTrue(p.get(1).startsWith("poison in implicit mode"), p.toString());
    }

    /** The poison rule: workloads/ctp/testdata/poison_cases.golden.json, Go's Poison.Is answers (TestPoisonGolden). */
    @Test
    @SuppressWarnings("unchecked")
    void poisonRuleIsGos() throws Exception {
        String text = new String(Files.readAllBytes(root().resolve("workloads/ctp/testdata/poison_cases.golden.json")), StandardCharsets.UTF_8);
        List<Object> cases = (List<Object>) Json.parse(text);
        assertFalse(cases.isEmpty());
        int poison = 0;
        for (Object o : cases) {
            Map<String, Object> c = (Map<String, Object>) o;
            Poison rule = new Poison((int) (long) (Long) c.get("every"), (int) (long) (Long) c.get("offset"));
            String id = (String) c.get("id");
            boolean want = (Boolean) c.get("poison");
            assertEquals(want, rule.is(id), "every " + rule.every + " offset " + rule.offset + " id \"" + id + "\"");
            poison += want ? 1 : 0;
        }
        assertTrue(poison > 0, "the cases poison nothing");
    }

    /** The ledger rule: workloads/kip1289/ledger/testdata/rule_cases.golden.json, the Go Book's answers. */
    @Test
    @SuppressWarnings("unchecked")
    void ledgerRuleIsGos() throws Exception {
        String text = new String(Files.readAllBytes(root().resolve("workloads/kip1289/ledger/testdata/rule_cases.golden.json")), StandardCharsets.UTF_8);
        List<Object> cases = (List<Object>) Json.parse(text);
        assertFalse(cases.isEmpty());
        for (Object o : cases) {
            Map<String, Object> c = (Map<String, Object>) o;
            Book b = new Book();
            if (c.get("entries") != null) {
                for (Object eo : (List<Object>) c.get("entries")) {
                    Map<String, Object> e = (Map<String, Object>) eo;
                    long off = (Long) e.get("offset");
                    b.apply(off, new LedgerEntry("w1.1", off, in((List<Object>) e.get("records"))));
                }
            }
            List<RecordId> batch = in((List<Object>) c.get("batch"));
            String name = (String) c.get("name");
            assertEquals(longs((List<Object>) c.get("committed")), offsets(b.committed(batch)), name + ": committed");
            assertEquals(longs((List<Object>) c.get("conflicts")), offsets(b.conflicts(batch, (Long) c.get("own"))), name + ": conflicts");
        }
    }

    static List<RecordId> in(List<Object> offsets) {
        List<RecordId> out = new ArrayList<>();
        for (Object o : offsets) {
            out.add(new RecordId("in", 0, (Long) o));
        }
        return out;
    }

    static List<Long> longs(List<Object> l) {
        List<Long> out = new ArrayList<>();
        for (Object o : l) {
            out.add((Long) o);
        }
        return out;
    }

    static List<Long> offsets(List<RecordId> ids) {
        List<Long> out = new ArrayList<>();
        for (RecordId id : ids) {
            out.add(id.offset);
        }
        out.sort(null);
        return out;
    }

    static String str(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? "" : (String) v;
    }

    /**
     * Every action the Go worker has (workloads/ctp/arm.go's Action
     * constants) is one the Java worker knows: a row armed with one it did
     * not know would be refused as a bad config instead of run.
     */
    @Test
    void everyGoActionIsKnown() throws Exception {
        java.util.regex.Pattern decl = java.util.regex.Pattern.compile("^\\s*Action\\w+\\s+Action\\s*=\\s*\"([^\"]+)\"");
        List<String> goActions = new ArrayList<>();
        for (String line : Files.readAllLines(root().resolve("workloads/ctp/arm.go"), StandardCharsets.UTF_8)) {
            java.util.regex.Matcher m = decl.matcher(line);
            if (m.find()) {
                goActions.add(m.group(1));
            }
        }
        assertTrue(goActions.contains(Arm.TERM), "arm.go's actions " + goActions);
        for (String a : goActions) {
            assertTrue(Arm.ACTIONS.contains(a), "the Go action " + a + " is unknown to the Java worker");
        }
    }
}
