package sharechaos.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.junit.jupiter.api.Test;

/** The pieces that need no broker: durations, ledger entries, the book, commit outcomes, config problems. */
class UnitTest {
    @Test
    void goDurations() {
        assertEquals(Duration.ofMillis(1500), GoDuration.parse("1.5s"));
        assertEquals(Duration.ofSeconds(90), GoDuration.parse("1m30s"));
        assertEquals(Duration.ofMillis(300), GoDuration.parse("300ms"));
        assertEquals(Duration.ZERO, GoDuration.parse("0s"));
        assertEquals(Duration.ofNanos(3_723_500_000_000L), GoDuration.parse("1h2m3.5s"));
        for (String s : new String[] {"10s", "1m30s", "1.5s", "250ms", "0s", "1h0m0s", "2h3m4.005s", "1.5\u00b5s", "7ns"}) {
            assertEquals(s, GoDuration.format(GoDuration.parse(s)), s);
        }
        assertThrows(IllegalArgumentException.class, () -> GoDuration.parse("5 parsecs"));
    }

    /** Go's ledger entry_test.go: the same key and value bytes. */
    @Test
    void ledgerEntryRoundTrip() {
        LedgerEntry e = new LedgerEntry("w2.1", 17, List.of(new RecordId("in/with/slashes", 3, 42), new RecordId("in", 0, 0)));
        assertEquals("w2.1/17", e.key());
        assertEquals("in/with/slashes/3/42\nin/0/0", new String(e.valueBytes(), StandardCharsets.UTF_8));
        LedgerEntry back = LedgerEntry.decode(e.keyBytes(), e.valueBytes(), 5);
        assertEquals("w2.1", back.worker);
        assertEquals(17, back.seq);
        assertEquals(e.records, back.records);
        for (String[] bad : new String[][] {{"no-seq", "in/0/1"}, {"w1/x", "in/0/1"}, {"w1/1", "in/0"}, {"w1/1", "in/0/1\n\n"}}) {
            assertThrows(IllegalArgumentException.class,
                    () -> LedgerEntry.decode(bad[0].getBytes(StandardCharsets.UTF_8), bad[1].getBytes(StandardCharsets.UTF_8), 1), bad[0]);
        }
    }

    @Test
    void bookRefusesOutOfOrderAndPrunes() {
        Book b = new Book();
        b.apply(3, new LedgerEntry("w1.1", 1, List.of(new RecordId("in", 0, 1), new RecordId("in", 1, 9))));
        assertThrows(IllegalStateException.class, () -> b.apply(2, new LedgerEntry("w1.1", 2, List.of())));
        assertEquals(1, b.prune(java.util.Map.of("in", java.util.Map.of(0, 5L))));
        assertEquals(1, b.size());
    }

    @Test
    void commitOutcomes() {
        assertEquals(Event.OK, CommitOutcome.of(null));
        assertEquals(Event.FAIL, CommitOutcome.of(new TransactionAbortableException("x")));
        assertEquals(Event.FAIL, CommitOutcome.of(new InvalidTxnStateException("x")));
        assertEquals(Event.FAIL, CommitOutcome.of(new KafkaException(
                "Cannot execute transactional method because we are in an error state", new TimeoutException("expired"))));
        assertEquals(Event.INFO, CommitOutcome.of(new TimeoutException("Timeout expired after 30000ms while awaiting EndTxn(true)")));
        assertEquals(Event.INFO, CommitOutcome.of(new ProducerFencedException("fenced")));
        assertTrue(CommitOutcome.fenced(new KafkaException("wrapped", new ProducerFencedException("fenced"))));
    }

    /** The history's error text begins with Kafka's error name, as kgo's errors do (the checker's evidence reads it). */
    @Test
    void errorTextNamesKafkasError() {
        assertTrue(Worker.msg(new InvalidTxnStateException("The producer attempted a transactional operation in an invalid state."))
                .startsWith("INVALID_TXN_STATE: InvalidTxnStateException: "));
        assertTrue(Worker.msg(new KafkaException("wrapped", new ProducerFencedException("x"))).startsWith("PRODUCER_FENCED: "));
        assertEquals("IllegalStateException: x", Worker.msg(new IllegalStateException("x")));
    }

    @Test
    void nativeIsRefused() {
        WorkerConfig c = WorkerConfig.parse("{\"bootstrap\":[\"h:1\"],\"group\":\"g\",\"input_topic\":\"i\",\"output_topic\":\"o\","
                + "\"transactional_id\":\"t\",\"history_path\":\"/h\",\"mode\":\"transactional\",\"realization\":\"native\",\"max_records\":10}");
        assertEquals(1, c.problems().size());
        assertTrue(c.problems().get(0).contains("ledger only"), c.problems().get(0));
        assertEquals(Duration.ofSeconds(10), c.txnTimeout); // ctp.WorkerConfig.defaults
        assertEquals(Duration.ofSeconds(20), c.deliveryTimeout);
        assertEquals(Duration.ofSeconds(30), c.requestTimeout);
    }

    /** The graceful-stop row's arm parses and runs (no config problem). */
    @Test
    void termArmParses() {
        WorkerConfig c = WorkerConfig.parse("{\"bootstrap\":[\"h:1\"],\"group\":\"g\",\"input_topic\":\"i\",\"output_topic\":\"o\","
                + "\"transactional_id\":\"t\",\"history_path\":\"/h\",\"mode\":\"explicit\",\"max_records\":10,"
                + "\"arm\":{\"fault\":\"graceful-stop-mid-txn\",\"point\":\"after-send\",\"action\":\"term\",\"batch\":2}}");
        assertEquals(Arm.TERM, c.arm.action);
        assertTrue(c.arm.at(Arm.AFTER_SEND, 2));
        assertEquals(List.of(), c.problems());
    }

    @Test
    void mainRefusesBadArguments() {
        assertEquals(64, Main.run(new String[] {}));
        assertEquals(64, Main.run(new String[] {"/nonexistent/config.json"}));
    }

    /** A mutant comes from the system property only, and one the worker does not have is refused. */
    @Test
    void mutants() {
        String before = System.getProperty(Mutant.PROPERTY);
        try {
            System.clearProperty(Mutant.PROPERTY);
            assertEquals("", Mutant.active());
            assertEquals("", Mutant.problem());
            System.setProperty(Mutant.PROPERTY, Mutant.ACK_BEFORE_COMMIT);
            assertTrue(Mutant.is(Mutant.ACK_BEFORE_COMMIT));
            assertEquals("", Mutant.problem());
            System.setProperty(Mutant.PROPERTY, "forget-ack");
            assertTrue(Mutant.problem().contains("no mutant forget-ack"), Mutant.problem());
        } finally {
            if (before == null) {
                System.clearProperty(Mutant.PROPERTY);
            } else {
                System.setProperty(Mutant.PROPERTY, before);
            }
        }
    }

    /** A stepped worker's answer: the line Go's ctp.SteppedAnswer decodes (workloads/ctp/stepped_test.go has the same line). */
    @Test
    void stepResultLine() {
        StepResult r = new StepResult();
        r.records = 10;
        r.outcome = Event.OK;
        r.commitNs = 2_500_000;
        r.totalNs = 9_000_000;
        r.ackNs = 1_000_000;
        r.txn = 7;
        assertEquals("{\"records\":10,\"outcome\":\"ok\",\"commit_ns\":2500000,\"total_ns\":9000000,\"ack_ns\":1000000,\"txn_acks_ns\":0,\"txn\":7}", r.json());
        assertEquals("{\"error\":\"fenced \\\"w1.1\\\"\"}", StepResult.error("fenced \"w1.1\""));
    }

    /** The start event names the kafka-clients release it runs on (any 4.x: the build's). */
    @Test
    void kafkaClientsVersionIsTheBuildsRelease() {
        String v = Worker.kafkaClientsVersion();
        assertTrue(v.matches("4\\.\\d+\\.\\d+.*"), "kafka-clients version " + v);
    }
}
