package sharechaos.worker;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The CTP loop on Kafka's Java clients: Go's ctp.Worker
 * (workloads/ctp/worker.go, step.go) step for step, writing the same events
 * with the same meaning, so the Go checker judges it unchanged. Poll a small
 * batch from the share group, produce one output per record in a
 * transaction, commit, and acknowledge as the mode says; every step is in the
 * history before the next one starts.
 *
 * <p>One thread runs the loop (the share consumer is single-threaded). A
 * graceful stop (SIGTERM: {@link #requestStop}) lets the step in progress end
 * at its next check: a transaction not yet committed is aborted and its
 * batch released, then the clients close and the stop event is written.
 */
final class Worker {
    /** The loop stops: fenced, or refused after a resume. The worker exits 1 and is replaced. */
    static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;

        Stop(String msg, Throwable cause) {
            super(msg, cause);
        }
    }

    private final WorkerConfig cfg;
    private final HistoryWriter hist;
    private final boolean implicit;
    private ShareSource src;
    private KafkaProducer<String, String> producer;
    private LinkBreaker breaker;
    private LedgerAcker acker;

    /** The incarnation was frozen by its stop fault and continued: another may own its transactional id now. */
    private boolean resumed;
    /** This follower held its redelivered batch (one-shot). */
    private boolean held;
    private int batches;
    private long txnSeq;
    /** The batch the loop is processing: what a stall at a fault point holds, and renews. */
    private List<ConsumerRecord<String, String>> holding = List.of();
    /** What the step in progress (or the last one) did: a stepped worker's answer. */
    private StepResult last = new StepResult();
    /** Where the acknowledgement commit callback's events say they came from. */
    private String during = "poll";

    private volatile boolean stopping;
    private final CountDownLatch stopLatch = new CountDownLatch(1);
    private IOException historyErr;

    Worker(WorkerConfig cfg, HistoryWriter hist) {
        this.cfg = cfg;
        this.hist = hist;
        this.implicit = WorkerConfig.IMPLICIT.equals(cfg.mode);
    }

    /** Asks the loop to stop (from the SIGTERM hook's thread). */
    void requestStop() {
        stopping = true;
        stopLatch.countDown();
    }

    boolean stopping() {
        return stopping;
    }

    /**
     * The kafka-clients release on the classpath, from the properties file
     * the jar carries: AppInfoParser, which says it too, moved to an
     * internals package in 4.4, and the worker builds on any 4.x.
     */
    static String kafkaClientsVersion() {
        try (java.io.InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Writes the start event and opens the clients. */
    void open() throws Exception {
        Event start = new Event(Event.INFO, Event.START)
                .realization(WorkerConfig.TRANSACTIONAL.equals(cfg.mode) ? cfg.realization : "")
                .attr("mode", cfg.mode).attr("consumer", "java").attr("client", "java")
                .attr("pid", Long.toString(SelfSignal.PID)).attr("transactional_id", cfg.transactionalId)
                .attr("txn_timeout", GoDuration.format(cfg.txnTimeout))
                .attr("kafka_clients", kafkaClientsVersion());
        event(start);
        Properties cp = base("sharechaos-" + cfg.name());
        cp.put("group.id", cfg.group);
        cp.put("share.acknowledgement.mode", implicit ? "implicit" : "explicit");
        cp.put("share.acquire.mode", "record_limit");
        cp.put("max.poll.records", Integer.toString(cfg.maxRecords));
        // One fetch per poll goes to one broker at a time; a broker with
        // nothing left long-polls for the whole wait while another's
        // partitions have records, so keep the wait short (as the Go worker).
        cp.put("fetch.max.wait.ms", "100");
        cp.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        cp.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        src = new ShareSource(cp, !implicit, cfg.inputTopic, this::onAcksCommitted);
        openProducer();
        if (WorkerConfig.TRANSACTIONAL.equals(cfg.mode)) {
            acker = new LedgerAcker(cfg.ledgerTopic, cfg.group, base("sharechaos-" + cfg.name() + "-ledger"),
                    base("sharechaos-" + cfg.name() + "-admin"), () -> stopping);
        }
    }

    private Properties base(String clientId) throws IOException {
        Properties p = new Properties();
        p.put("bootstrap.servers", String.join(",", cfg.bootstrap));
        p.put("client.id", clientId);
        cfg.client.apply(p);
        return p;
    }

    /**
     * Creates the transactional producer and registers its transactional.id
     * at once (initTransactions): a crashed predecessor with the same id is
     * fenced and its open transaction aborted now, not at its timeout.
     */
    private void openProducer() throws Exception {
        Properties pp = base("sharechaos-" + cfg.name() + "-producer");
        pp.put("transactional.id", cfg.transactionalId);
        pp.put("transaction.timeout.ms", Long.toString(cfg.txnTimeout.toMillis()));
        // delivery.timeout.ms bounds a produce, so a broken link surfaces as
        // an error; the producer wants it at least linger + request timeout.
        pp.put("delivery.timeout.ms", Long.toString(cfg.deliveryTimeout.toMillis()));
        pp.put("request.timeout.ms", Long.toString(Math.min(cfg.requestTimeout.toMillis(), cfg.deliveryTimeout.toMillis())));
        pp.put("max.block.ms", Long.toString(cfg.requestTimeout.toMillis()));
        // The loop waits for every output before it commits: lingering only adds latency.
        pp.put("linger.ms", "0");
        pp.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        pp.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        producer = new KafkaProducer<>(pp);
        breaker = new LinkBreaker();
        String breakerErr = "";
        try {
            breaker.install(producer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            breakerErr = e.toString();
        }
        producer.initTransactions();
        Event e = new Event(Event.OK, Event.INIT_PRODUCER);
        long[] idEpoch = producerIdAndEpoch(producer);
        if (idEpoch != null) {
            e.attr("producer_id", Long.toString(idEpoch[0])).attr("epoch", Long.toString(idEpoch[1]));
        }
        if (!breakerErr.isEmpty()) {
            e.attr("link_breaker", "not installed: " + breakerErr);
        }
        event(e);
    }

    /** The producer id and epoch, read from its TransactionManager (not public API; null if not found). */
    private static long[] producerIdAndEpoch(KafkaProducer<?, ?> p) {
        try {
            Field tm = KafkaProducer.class.getDeclaredField("transactionManager");
            tm.setAccessible(true);
            Object m = tm.get(p);
            Field pe = m.getClass().getDeclaredField("producerIdAndEpoch");
            pe.setAccessible(true);
            Object v = pe.get(m);
            return new long[] {v.getClass().getField("producerId").getLong(v), v.getClass().getField("epoch").getShort(v)};
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Throws the producer away after a commit or abort error: after fencing
     * or an unknown outcome a fresh initTransactions is the one way to be
     * sure no transaction of ours is still open.
     */
    private void replaceProducer() throws Exception {
        producer.close(Duration.ZERO);
        producer = null;
        openProducer();
    }

    /** Runs steps until a stop is asked, the worker is fenced, or the history cannot be written. */
    void run() throws Exception {
        while (!stopping) {
            step();
            checkHistory();
        }
    }

    /** Throws the history's write error, if any: a worker whose history is incomplete must stop. */
    void checkHistory() throws IOException {
        if (historyErr != null) {
            throw historyErr;
        }
    }

    /** What the last step did. */
    StepResult lastStep() {
        return last;
    }

    /** Closes the clients (aborting nothing: the loop ends between transactions) and writes the stop event. */
    void close(Throwable why) {
        during = "close";
        if (acker != null) {
            quietly(acker::close);
        }
        if (producer != null) {
            quietly(() -> producer.close(Duration.ofSeconds(5)));
        }
        if (src != null) {
            quietly(src::close);
        }
        Event e = new Event(Event.INFO, Event.STOP);
        if (why != null) {
            e.error(why.getMessage() == null ? why.toString() : why.getMessage());
        }
        event(e);
    }

    private void quietly(ThrowingRunnable r) {
        try {
            r.run();
        } catch (Exception e) {
            event(new Event(Event.INFO, Event.CLIENT).attr("during", "close").error(e.toString()));
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * Appends e. A history that cannot be written makes the run worthless:
     * the first error is kept and ends the loop after the step.
     */
    private void event(Event e) {
        try {
            hist.record(e);
        } catch (IOException ex) {
            if (historyErr == null) {
                historyErr = new IOException("write history of worker " + cfg.name() + ": " + ex.getMessage(), ex);
            }
        }
    }

    /**
     * The Java client's acknowledgement commit callback: runs on the loop's
     * thread inside poll, commitSync and close. In implicit mode it is the only
     * word of the acks that travel with the next fetch; in explicit mode the
     * loop's own commitSync already reports per partition, so only failures are
     * written (and what close sends).
     */
    private void onAcksCommitted(Map<TopicIdPartition, Set<Long>> offsets, Exception exception) {
        if (!implicit && exception == null && !"close".equals(during)) {
            return;
        }
        for (Map.Entry<TopicIdPartition, Set<Long>> e : offsets.entrySet()) {
            Event ev = new Event(Event.INFO, Event.CLIENT).attr("what", "acknowledgement-commit-callback")
                    .attr("during", during)
                    .attr("partition", e.getKey().topic() + "/" + e.getKey().partition())
                    .attr("offsets", ranges(e.getValue()));
            if (exception != null) {
                ev.error(exception.getClass().getSimpleName() + ": " + exception.getMessage());
            }
            event(ev);
        }
    }

    private static String ranges(Set<Long> offsets) {
        List<Long> l = new ArrayList<>(offsets);
        java.util.Collections.sort(l);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < l.size(); ) {
            int j = i;
            while (j + 1 < l.size() && l.get(j + 1) == l.get(j) + 1) {
                j++;
            }
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(l.get(i));
            if (j > i) {
                b.append('-').append(l.get(j));
            }
            i = j + 1;
        }
        return b.toString();
    }

    // ---- the loop ----

    /** One poll and, when it brought records, one transaction. In implicit mode the poll itself accepts the previous batch. */
    void step() throws Exception {
        last = new StepResult();
        during = "poll";
        List<ConsumerRecord<String, String>> batch = src.poll(Duration.ofSeconds(1));
        if (stopping) {
            return; // as the Go worker's cancelled poll: the close releases what it brought
        }
        if (batch.isEmpty()) {
            return;
        }
        batches++;
        last.records = batch.size();
        event(new Event(Event.OK, Event.POLL).records(recs(batch)));
        if (cfg.poison != null) {
            List<ConsumerRecord<String, String>> poison = cfg.poison.of(batch);
            if (!poison.isEmpty()) {
                // Unprocessable: back to the broker at once, no output, until
                // it archives them (delivery-count limit) or dead-letters them.
                ack(AcknowledgeType.RELEASE, poison);
                batch = without(batch, poison);
                if (batch.isEmpty()) {
                    return;
                }
            }
        }

        if (acker != null) {
            List<ConsumerRecord<String, String>> done;
            try {
                done = acker.preCheck(batch, renewer(batch));
            } catch (Exception e) {
                event(new Event(Event.FAIL, Event.LEDGER).records(recs(batch)).error("pre-check: " + msg(e)));
                ack(AcknowledgeType.RELEASE, batch);
                return;
            }
            if (!done.isEmpty()) {
                // Someone else's committed transaction holds these records' acks:
                // accept them without processing (ledger step 2).
                ack(AcknowledgeType.ACCEPT, done);
                batch = without(batch, done);
                if (batch.isEmpty()) {
                    return;
                }
            }
        }
        boolean ackedEarly = Mutant.is(Mutant.ACK_BEFORE_COMMIT) && WorkerConfig.EXPLICIT.equals(cfg.mode);
        if (ackedEarly) {
            ack(AcknowledgeType.ACCEPT, batch);
        }
        holding = batch;
        if (cfg.arm.at(Arm.BEFORE_BEGIN, batches) || holdsRedelivered(batch)) {
            fire(Arm.BEFORE_BEGIN);
        }
        transact(batch, ackedEarly);
    }

    /** One transaction over batch; ackedEarly: the batch was ACCEPTed already (a mutant's). */
    private void transact(List<ConsumerRecord<String, String>> batch, boolean ackedEarly) throws Exception {
        txnSeq++;
        long txnStart = System.nanoTime();
        event(new Event(Event.INVOKE, Event.BEGIN).txn(txnSeq));
        try {
            producer.beginTransaction();
        } catch (RuntimeException e) {
            event(new Event(Event.FAIL, Event.BEGIN).txn(txnSeq).error(msg(e)));
            ack(AcknowledgeType.RELEASE, batch);
            replaceProducer();
            return;
        }
        event(new Event(Event.OK, Event.BEGIN).txn(txnSeq));

        if (cfg.arm.at(Arm.BEFORE_SEND, batches)) {
            fire(Arm.BEFORE_SEND);
            if (Arm.FAIL_PRODUCE.equals(cfg.arm.action)) {
                String err = cutOutputLeader();
                if (!err.isEmpty()) {
                    event(new Event(Event.INFO, Event.FAULT_ERROR).fault(cfg.arm.fault, "").error(err));
                }
            }
        }
        event(new Event(Event.INVOKE, Event.SEND).txn(txnSeq).ids(ids(batch)));
        long sendStart = System.nanoTime();
        String err = produceAll(batch);
        breaker.heal(); // one-shot: the cut lasts until this batch's produce has failed
        if (!err.isEmpty()) {
            event(new Event(Event.FAIL, Event.SEND).txn(txnSeq).ids(ids(batch)).error(err).dur(System.nanoTime() - sendStart));
            abort(batch, "produce failed: " + err);
            return;
        }
        event(new Event(Event.OK, Event.SEND).txn(txnSeq).ids(ids(batch)).dur(System.nanoTime() - sendStart));
        try {
            producer.flush(); // every send was already waited for; flush only confirms nothing is left
        } catch (RuntimeException e) {
            event(new Event(Event.FAIL, Event.FLUSH).txn(txnSeq).error(msg(e)));
            abort(batch, "flush failed: " + msg(e));
            return;
        }
        event(new Event(Event.OK, Event.FLUSH).txn(txnSeq));
        if (cfg.arm.at(Arm.AFTER_SEND, batches)) {
            fire(Arm.AFTER_SEND);
        }
        if (abortIfStopping(batch)) {
            return;
        }

        if (acker != null) {
            event(new Event(Event.INVOKE, Event.TXN_ACKS).txn(txnSeq).records(recs(batch)));
            long ackStart = System.nanoTime();
            try {
                acker.addAcks(producer, cfg.name(), txnSeq, batch, cfg.deliveryTimeout.plusSeconds(1));
            } catch (Exception e) {
                event(new Event(Event.FAIL, Event.TXN_ACKS).txn(txnSeq).error(msg(e)));
                abort(batch, "acks into the transaction failed: " + msg(e));
                return;
            }
            last.txnAcksNs = System.nanoTime() - ackStart;
            event(new Event(Event.OK, Event.TXN_ACKS).txn(txnSeq).records(recs(batch)).dur(last.txnAcksNs));
            if (cfg.arm.at(Arm.AFTER_ACKS, batches)) {
                fire(Arm.AFTER_ACKS);
            }
            event(new Event(Event.INVOKE, Event.VALIDATE).txn(txnSeq));
            List<ConsumerRecord<String, String>> conflicts;
            try {
                conflicts = acker.validate(cfg.name(), txnSeq, batch, renewer(batch), cfg.requestTimeout);
            } catch (Exception e) {
                event(new Event(Event.FAIL, Event.VALIDATE).txn(txnSeq).error(msg(e)));
                abort(batch, "validation failed: " + msg(e));
                return;
            }
            if (!conflicts.isEmpty()) {
                event(new Event(Event.FAIL, Event.VALIDATE).txn(txnSeq).records(recs(conflicts))
                        .error("acks of these records were committed by another transaction first"));
                // Abort, then ACCEPT what someone else committed and RELEASE the rest.
                abortOnly(conflicts.size() + " records already committed elsewhere");
                ack(AcknowledgeType.ACCEPT, conflicts);
                ack(AcknowledgeType.RELEASE, without(batch, conflicts));
                return;
            }
            event(new Event(Event.OK, Event.VALIDATE).txn(txnSeq));
        }

        if (cfg.arm.at(Arm.BEFORE_COMMIT, batches)) {
            fire(Arm.BEFORE_COMMIT);
            if (Arm.ABORT.equals(cfg.arm.action)) {
                // explicit-abort (case 6): this batch fails "validation" once.
                abort(batch, "explicit abort (fault)");
                return;
            }
        }
        if (abortIfStopping(batch)) {
            return;
        }

        event(new Event(Event.INVOKE, Event.COMMIT).txn(txnSeq).records(recs(batch)));
        long commitStart = System.nanoTime();
        Exception commitErr = null;
        try {
            producer.commitTransaction();
        } catch (RuntimeException e) {
            commitErr = e;
        }
        breaker.heal();
        String outcome = CommitOutcome.of(commitErr);
        long now = System.nanoTime();
        last.outcome = outcome;
        last.txn = txnSeq;
        last.commitNs = now - commitStart;
        last.totalNs = now - txnStart;
        Event ce = new Event(outcome, Event.COMMIT).txn(txnSeq).records(recs(batch)).dur(now - commitStart).txnNs(now - txnStart);
        if (commitErr != null) {
            ce.error(msg(commitErr));
        }
        event(ce);

        if (Event.OK.equals(outcome)) {
            if (cfg.arm.at(Arm.AFTER_COMMIT, batches)) {
                fire(Arm.AFTER_COMMIT);
            }
            if (!implicit && !ackedEarly) {
                last.ackNs = ack(AcknowledgeType.ACCEPT, batch);
            }
            return;
        }
        // Failed or unknown: never ACCEPT after an unknown outcome; RELEASE and
        // let the next holder decide. Implicit mode cannot: its next poll
        // accepts the batch whatever happened.
        if (!implicit) {
            ack(AcknowledgeType.RELEASE, batch);
        }
        if (CommitOutcome.fenced(commitErr)) {
            throw new Stop("commit txn " + txnSeq + ": fenced: " + msg(commitErr), commitErr);
        }
        if (resumed && Event.FAIL.equals(outcome)) {
            // A zombie whose commit is refused must not re-register its
            // transactional id (that would fence its replacement in turn).
            throw new Stop("commit txn " + txnSeq + " after being resumed: refused: " + msg(commitErr), commitErr);
        }
        replaceProducer();
    }

    /** Aborts the open transaction and releases the batch (implicit mode leaves it to the next poll, which accepts it). */
    private void abort(List<ConsumerRecord<String, String>> batch, String why) throws Exception {
        try {
            abortOnly(why);
        } finally {
            if (!implicit) {
                ack(AcknowledgeType.RELEASE, batch);
            }
        }
    }

    private void abortOnly(String why) throws Exception {
        event(new Event(Event.INVOKE, Event.ABORT).txn(txnSeq).error(why));
        long start = System.nanoTime();
        try {
            producer.abortTransaction();
        } catch (RuntimeException e) {
            // Unknown: the producer is replaced, whose initTransactions aborts
            // whatever is still open.
            event(new Event(Event.INFO, Event.ABORT).txn(txnSeq).error(msg(e)).dur(System.nanoTime() - start));
            if (CommitOutcome.fenced(e)) {
                // A zombie must not re-register the id its replacement owns.
                throw new Stop("abort txn " + txnSeq + ": fenced: " + msg(e), e);
            }
            replaceProducer();
            return;
        }
        event(new Event(Event.OK, Event.ABORT).txn(txnSeq).dur(System.nanoTime() - start));
    }

    /**
     * Acknowledges batch with type and commits the acks synchronously, so the
     * ack event records a completed round trip: ok when the broker took every
     * partition's acks, fail naming what it (or the client) refused, info when
     * commitSync threw and the outcome is unknown.
     */
    private long ack(AcknowledgeType type, List<ConsumerRecord<String, String>> batch) {
        if (batch.isEmpty()) {
            return 0;
        }
        String name = type == AcknowledgeType.ACCEPT ? Event.ACCEPT : type == AcknowledgeType.RELEASE ? Event.RELEASE
                : type == AcknowledgeType.REJECT ? Event.REJECT : "renew";
        event(new Event(Event.INVOKE, Event.ACK).ack(name).records(recs(batch)));
        long start = System.nanoTime();
        during = "ack";
        ShareSource.AckResult r = src.ack(type, batch, cfg.requestTimeout);
        during = "poll";
        long d = System.nanoTime() - start;
        if (r.error != null) {
            event(new Event(Event.INFO, Event.ACK).ack(name).records(recs(batch)).error(msg(r.error)).dur(d));
        } else if (!r.rejected.isEmpty()) {
            // The broker refused (or never got) some of these acks: the records
            // stay acquired until released or their locks expire.
            event(new Event(Event.FAIL, Event.ACK).ack(name).records(recs(batch)).error(String.join("; ", r.rejected)).dur(d));
        } else {
            event(new Event(Event.OK, Event.ACK).ack(name).records(recs(batch)).dur(d));
        }
        return d;
    }

    /**
     * The idle function of a ledger read: renews the batch's locks every
     * interval while the read waits behind an open transaction (half the time
     * the batch's lock had left, at least 100 ms), so waiting does not hand the
     * records to another worker and burn their delivery counts. A renew that
     * fails only costs a redelivery (the ledger still decides): it is written
     * as a renew fail event with the client's words.
     */
    private LedgerAcker.Idle renewer(List<ConsumerRecord<String, String>> batch) {
        long lockNanos = src.lockMs().map(ms -> Duration.ofMillis(ms).toNanos()).orElse(0L);
        if (lockNanos <= 0) {
            return null;
        }
        long deadline = src.lastPollNanos() + lockNanos;
        long interval = Math.max(Duration.ofMillis(100).toNanos(), (deadline - System.nanoTime()) / 2);
        long[] last = {System.nanoTime()};
        return () -> {
            if (System.nanoTime() - last[0] < interval) {
                return;
            }
            last[0] = System.nanoTime();
            during = "renew";
            long start = System.nanoTime();
            ShareSource.AckResult r = src.renew(batch, cfg.requestTimeout);
            during = "poll";
            List<String> problems = new ArrayList<>(r.rejected);
            if (r.error != null) {
                problems.add("commitSync: " + msg(r.error));
            }
            // The Go worker renews only in a stall (renewStalled); these are
            // the Java client's RENEW round trips while a ledger read waits
            // (acknowledge RENEW, commitSync, poll to have the records back),
            // for the reader: no checker needs them.
            Event e = new Event(problems.isEmpty() ? Event.OK : Event.FAIL, Event.RENEW).records(recs(batch))
                    .dur(System.nanoTime() - start).error(String.join("; ", problems));
            event(e);
        };
    }

    /**
     * Go's Worker.stall (renew.go): holds the batch for the arm's stall (or
     * until a stop is asked), connections up; a worker that renews sends
     * RENEW for the batch every renew.every meanwhile, on Go's ticker's
     * schedule (a renewal that overruns a period skips the missed ones). A
     * renewal the broker refuses is recorded and the stall goes on: the
     * row's evidence and the checker read what happened.
     */
    private void stall() throws InterruptedException {
        long end = System.nanoTime() + cfg.arm.stall.toNanos();
        boolean renews = cfg.renew != null && cfg.renew.every.toNanos() > 0 && !holding.isEmpty();
        long every = renews ? cfg.renew.every.toNanos() : 0;
        long next = renews ? System.nanoTime() + every : Long.MAX_VALUE;
        while (!stopping) {
            long now = System.nanoTime();
            if (now - end >= 0) {
                return;
            }
            if (renews && now - next >= 0) {
                renewStalled();
                while (System.nanoTime() - next >= 0) {
                    next += every;
                }
                continue;
            }
            long wake = renews && next - end < 0 ? next : end;
            stopLatch.await(wake - now, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Go's Worker.renew: one RENEW for the held batch, and its answer as the
     * Go worker writes it: ok with the time the broker holds the records
     * until (the renew's start plus the lock), fail with what the broker or
     * the client refused, info when the outcome is unknown.
     */
    private void renewStalled() {
        List<Event.Rec> rs = recs(holding);
        event(new Event(Event.INVOKE, Event.RENEW).txn(txnSeq).records(rs));
        java.time.Instant at = java.time.Instant.now();
        long start = System.nanoTime();
        during = "renew";
        ShareSource.AckResult r = src.renew(holding, cfg.requestTimeout);
        during = "poll";
        long d = System.nanoTime() - start;
        if (r.error != null) {
            event(new Event(Event.INFO, Event.RENEW).txn(txnSeq).records(rs).error(msg(r.error)).dur(d));
        } else if (!r.rejected.isEmpty()) {
            event(new Event(Event.FAIL, Event.RENEW).txn(txnSeq).records(rs).error(String.join("; ", r.rejected)).dur(d));
        } else {
            long until = at.getEpochSecond() * 1_000_000_000L + at.getNano() + cfg.renew.lock.toNanos();
            event(new Event(Event.OK, Event.RENEW).txn(txnSeq).records(rs).dur(d)
                    .attr(Renew.ATTR_LOCK_UNTIL, Long.toString(until)));
        }
        if (r.strays > 0) {
            event(new Event(Event.INFO, Event.CLIENT).attr("during", "renew")
                    .error("the poll after the renew acquired " + r.strays + " records of no batch: released"));
        }
    }

    /**
     * Produces one output per input record into the open transaction and waits
     * for every result, bounded by the delivery timeout plus a second; returns
     * the first error's text, "" when every output was written.
     */
    private String produceAll(List<ConsumerRecord<String, String>> batch) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        String txn = Long.toString(txnSeq);
        try {
            for (ConsumerRecord<String, String> r : batch) {
                ProducerRecord<String, String> out = new ProducerRecord<>(cfg.outputTopic, null, r.key(), "processed(" + r.value() + ")");
                out.headers().add(new RecordHeader("src", (r.topic() + "/" + r.partition() + "/" + r.offset()).getBytes(StandardCharsets.UTF_8)));
                out.headers().add(new RecordHeader("worker", cfg.name().getBytes(StandardCharsets.UTF_8)));
                out.headers().add(new RecordHeader("txn", txn.getBytes(StandardCharsets.UTF_8)));
                futures.add(producer.send(out));
            }
        } catch (RuntimeException e) {
            return "send: " + msg(e);
        }
        long deadline = System.nanoTime() + cfg.deliveryTimeout.plusSeconds(1).toNanos();
        String first = "";
        for (Future<RecordMetadata> f : futures) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (first.isEmpty()) {
                    first = msg(e.getCause());
                }
            } catch (java.util.concurrent.TimeoutException e) {
                return "produce: outputs not acknowledged within " + GoDuration.format(cfg.deliveryTimeout.plusSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "produce: interrupted";
            }
        }
        return first;
    }

    /** Cuts this worker's producer links to the leader of output partition 0; "" when done, else why not. */
    private String cutOutputLeader() {
        if (!breaker.installed()) {
            return "cut output leader: the link breaker is not installed in this kafka-clients version";
        }
        try {
            for (PartitionInfo p : producer.partitionsFor(cfg.outputTopic)) {
                if (p.partition() == 0) {
                    Node leader = p.leader();
                    if (leader == null || leader.isEmpty()) {
                        return "cut output leader: " + cfg.outputTopic + "/0 has no leader";
                    }
                    breaker.cut(leader.id());
                    return "";
                }
            }
            return "cut output leader: no partition 0 of " + cfg.outputTopic;
        } catch (RuntimeException e) {
            return "cut output leader: " + msg(e);
        }
    }

    /**
     * A graceful stop (SIGTERM) during the transaction aborts it and releases
     * its batch: checked after the send and before the commit, as the Go
     * worker's abortIfStopping, so that a stop neither commits nor goes on to
     * the transaction's acks.
     */
    private boolean abortIfStopping(List<ConsumerRecord<String, String>> batch) throws Exception {
        if (!stopping) {
            return false;
        }
        abort(batch, "worker stopping (SIGTERM)");
        return true;
    }

    /**
     * Records that the armed fault fired and performs its action: kill never
     * returns; stop returns once the process is continued; term returns once
     * the shutdown hook asked the loop to stop; stall returns after
     * the arm's stall (or at a stop request).
     */
    private void fire(String point) throws InterruptedException {
        event(new Event(Event.INFO, Event.FAULT_FIRED).fault(cfg.arm.fault, point).txn(txnSeq)
                .attr("action", cfg.arm.action).attr("batch", Integer.toString(batches)));
        switch (cfg.arm.action) {
            case Arm.KILL:
                SelfSignal.kill(); // the event above is in the kernel already
                break;
            case Arm.TERM:
                // A graceful stop mid-transaction, through the JVM's
                // shutdown hook as a rolling deploy's SIGTERM: wait until
                // the hook asked the loop to stop, so that the next stop
                // check (abortIfStopping) sees it rather than races it.
                SelfSignal.term();
                if (!stopLatch.await(cfg.requestTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    event(new Event(Event.INFO, Event.FAULT_ERROR).fault(cfg.arm.fault, "")
                            .error("SIGTERM did not stop the worker (its shutdown hook never asked the loop to stop)"));
                }
                break;
            case Arm.STOP:
                // Freeze here, connections up; the orchestrator sends SIGCONT
                // once the replacement has fenced us.
                SelfSignal.stop();
                resumed = true;
                event(new Event(Event.INFO, Event.RESUMED).fault(cfg.arm.fault, "").txn(txnSeq));
                break;
            case Arm.STALL:
            case Arm.STALL_OVERLAP:
            case Arm.HOLD_REDELIVERED:
                // Hold what the point holds (the batch's acquisitions, an open
                // transaction), connections up, then go on with the loop.
                stall();
                break;
            default:
                break;
        }
    }

    /** Whether this follower holds batch now: the first batch with a record delivered more than once. */
    private boolean holdsRedelivered(List<ConsumerRecord<String, String>> batch) {
        if (held || !cfg.arm.holdsRedelivered()) {
            return false;
        }
        for (ConsumerRecord<String, String> r : batch) {
            if (r.deliveryCount().orElse((short) 0) > 1) {
                held = true;
                return true;
            }
        }
        return false;
    }

    static List<Event.Rec> recs(List<ConsumerRecord<String, String>> rs) {
        List<Event.Rec> out = new ArrayList<>(rs.size());
        for (ConsumerRecord<String, String> r : rs) {
            out.add(new Event.Rec(r.key(), r.partition(), r.offset(), r.deliveryCount().orElse((short) 0)));
        }
        return out;
    }

    static List<String> ids(List<ConsumerRecord<String, String>> rs) {
        List<String> out = new ArrayList<>(rs.size());
        for (ConsumerRecord<String, String> r : rs) {
            out.add(r.key());
        }
        return out;
    }

    static List<ConsumerRecord<String, String>> without(List<ConsumerRecord<String, String>> batch, List<ConsumerRecord<String, String>> drop) {
        Set<ConsumerRecord<String, String>> skip = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        skip.addAll(drop);
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        for (ConsumerRecord<String, String> r : batch) {
            if (!skip.contains(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * An exception's text as the history shows it: Kafka's protocol error
     * name first when there is one (INVALID_TXN_STATE, PRODUCER_FENCED: the
     * words kgo's errors begin with, and the ones the checker's evidence
     * looks for), then the exception's class and message.
     */
    static String msg(Throwable e) {
        if (e == null) {
            return "";
        }
        String m = e.getClass().getSimpleName() + ": " + e.getMessage();
        Throwable c = e.getCause();
        if (c != null && c != e && (e.getMessage() == null || !e.getMessage().contains(String.valueOf(c.getMessage())))) {
            m += " (cause: " + c.getClass().getSimpleName() + ": " + c.getMessage() + ")";
        }
        String code = errorName(e);
        return code.isEmpty() ? m : code + ": " + m;
    }

    /** Kafka's error name of e or its first cause that has one ("" when none). */
    static String errorName(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.kafka.common.errors.UnknownServerException) {
                return org.apache.kafka.common.protocol.Errors.UNKNOWN_SERVER_ERROR.name();
            }
            if (t instanceof org.apache.kafka.common.errors.ApiException) {
                org.apache.kafka.common.protocol.Errors err = org.apache.kafka.common.protocol.Errors.forException(t);
                if (err != org.apache.kafka.common.protocol.Errors.UNKNOWN_SERVER_ERROR && err != org.apache.kafka.common.protocol.Errors.NONE) {
                    return err.name();
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return "";
    }
}
