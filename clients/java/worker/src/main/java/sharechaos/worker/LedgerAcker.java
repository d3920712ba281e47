package sharechaos.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The ledger realization of the transactional ack mode, for brokers without
 * KIP-1289: Go's ledger.Acker (workloads/kip1289/ledger/acker.go), the same
 * entries in the same ledger partition, the same pre-check and the same
 * validation rule, so the Go checker and Go workers' ledgers agree with it.
 * Its one rule: a record's ack commits at most once, and the ledger decides
 * who wins (ARCHITECTURE.md, "The ledger realization, step by step").
 *
 * <ul>
 *   <li>preCheck (saves work): read the ledger read_committed up to a fresh
 *       high watermark (ListOffsets, read_uncommitted); records some
 *       committed entry holds are accepted without processing. Renew the
 *       batch's locks while waiting behind someone's open transaction.
 *   <li>addAcks: produce the transaction's one entry to ledger partition 0
 *       through the worker's transactional producer, check its result,
 *       remember its offset.
 *   <li>validate (the safety rule): read up to our own entry, which waits for
 *       every earlier writer's outcome; a batch record with a committed entry
 *       below ours is a conflict, and the loop aborts.
 * </ul>
 *
 * The reader is a KafkaConsumer with isolation.level=read_committed assigned
 * the ledger partition (no group): its position stops below an open
 * transaction's data (the last stable offset) and moves past commit markers,
 * so reading "up to offset t" is waiting until position reaches t, never
 * waiting to see offset t-1, which may be a marker.
 */
final class LedgerAcker implements AutoCloseable {
    static final int PARTITION = 0;

    private final String group;
    private final TopicPartition tp;
    private final KafkaConsumer<byte[], byte[]> reader;
    private final Admin admin;
    private final Book book = new Book();
    private final Duration fetchWait = Duration.ofMillis(250);
    private final Duration waitTimeout = Duration.ofMinutes(2);
    private final Duration pruneInterval = Duration.ofSeconds(5);
    private final BooleanSupplier stopping;
    private long lastPrune;
    private String ownKey;
    private long ownOffset = -1;

    LedgerAcker(String topic, String group, Properties readerProps, Properties adminProps, BooleanSupplier stopping) {
        this.group = group;
        this.tp = new TopicPartition(topic, PARTITION);
        this.stopping = stopping;
        Properties rp = new Properties();
        rp.putAll(readerProps);
        rp.put("isolation.level", "read_committed");
        rp.put("enable.auto.commit", "false");
        rp.put("auto.offset.reset", "earliest");
        rp.put("fetch.max.wait.ms", Long.toString(fetchWait.toMillis()));
        rp.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        rp.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        this.reader = new KafkaConsumer<>(rp);
        reader.assign(List.of(tp));
        reader.seekToBeginning(List.of(tp));
        this.admin = Admin.create(adminProps);
    }

    /** Something to do while a read waits behind an open transaction (renew the batch's locks). */
    interface Idle {
        void run();
    }

    /** The pre-check: the records of batch whose ack a committed transaction already holds. */
    List<ConsumerRecord<String, String>> preCheck(List<ConsumerRecord<String, String>> batch, Idle idle) throws Exception {
        long deadline = System.nanoTime() + waitTimeout.toNanos();
        long high = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                .partitionResult(tp).get(waitTimeout.toMillis(), TimeUnit.MILLISECONDS).offset();
        readTo(high, idle, deadline, "pre-check");
        List<ConsumerRecord<String, String>> done = pick(batch, book.committed(ids(batch)));
        maybePrune();
        return done;
    }

    /** Writes the transaction's one ledger entry through its producer and checks where it landed. */
    void addAcks(KafkaProducer<String, String> producer, String worker, long seq, List<ConsumerRecord<String, String>> batch,
                 Duration wait) throws Exception {
        LedgerEntry e = new LedgerEntry(worker, seq, ids(batch));
        ProducerRecord<String, String> r = new ProducerRecord<>(tp.topic(), PARTITION, e.key(),
                new String(e.valueBytes(), java.nio.charset.StandardCharsets.UTF_8));
        RecordMetadata md;
        try {
            md = producer.send(r).get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException ex) {
            throw new Exception("produce ledger entry " + e.key() + ": " + ex.getCause(), ex.getCause());
        }
        if (md.partition() != PARTITION) {
            throw new IllegalStateException("produce ledger entry " + e.key() + ": landed in partition " + md.partition() + ", not " + PARTITION);
        }
        ownKey = e.key();
        ownOffset = md.offset();
    }

    /** Validation: the records of batch a committed entry below ours holds; non-empty means abort. */
    List<ConsumerRecord<String, String>> validate(String worker, long seq, List<ConsumerRecord<String, String>> batch, Idle idle,
                                                  Duration wait) throws Exception {
        String key = worker + "/" + seq;
        if (!key.equals(ownKey)) {
            throw new IllegalStateException("ledger validate: no ledger entry for " + key + " (addAcks comes first)");
        }
        long own = ownOffset;
        ownKey = null;
        readTo(own, idle, System.nanoTime() + wait.toNanos(), "validate " + key);
        long pos = reader.position(tp);
        if (pos > own) {
            // Only our transaction ending lets a read_committed read pass our
            // own entry: it was aborted (e.g. timed out) under us.
            throw new IllegalStateException("ledger validate " + key + ": read passed our own entry at " + own + " (now " + pos
                    + "): our transaction is no longer open");
        }
        return pick(batch, book.conflicts(ids(batch), own));
    }

    /** Applies every committed entry below target to the book; idle runs while the read makes no progress. */
    private void readTo(long target, Idle idle, long deadline, String what) throws Exception {
        long pos = reader.position(tp);
        while (pos < target) {
            if (stopping.getAsBoolean()) {
                throw new IllegalStateException("read " + tp + " to " + target + " (at " + pos + ") for " + what + ": the worker is stopping");
            }
            for (ConsumerRecord<byte[], byte[]> r : reader.poll(fetchWait)) {
                book.apply(r.offset(), LedgerEntry.decode(r.key(), r.value(), r.offset()));
            }
            long now = reader.position(tp);
            if (now == pos) {
                if (idle != null) {
                    idle.run();
                }
                if (System.nanoTime() > deadline) {
                    throw new java.util.concurrent.TimeoutException("read " + tp + " to " + target + " (at " + pos + ") for " + what + ": timed out");
                }
            }
            pos = now;
        }
    }

    /** Forgets records below their share-partition start offsets, at most once per interval (memory only). */
    private void maybePrune() {
        if (System.nanoTime() - lastPrune < pruneInterval.toNanos()) {
            return;
        }
        lastPrune = System.nanoTime();
        try {
            Map<TopicPartition, SharePartitionOffsetInfo> offsets = admin
                    .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo(group).get(5, TimeUnit.SECONDS);
            Map<String, Map<Integer, Long>> starts = new HashMap<>();
            for (Map.Entry<TopicPartition, SharePartitionOffsetInfo> e : offsets.entrySet()) {
                if (e.getValue() != null && e.getValue().startOffset() >= 0) {
                    starts.computeIfAbsent(e.getKey().topic(), k -> new HashMap<>()).put(e.getKey().partition(), e.getValue().startOffset());
                }
            }
            book.prune(starts);
        } catch (Exception e) {
            // Pruning saves memory only; the next pre-check tries again.
        }
    }

    static List<RecordId> ids(List<ConsumerRecord<String, String>> batch) {
        List<RecordId> out = new ArrayList<>(batch.size());
        for (ConsumerRecord<String, String> r : batch) {
            out.add(new RecordId(r.topic(), r.partition(), r.offset()));
        }
        return out;
    }

    private static List<ConsumerRecord<String, String>> pick(List<ConsumerRecord<String, String>> batch, List<RecordId> ids) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        if (ids.isEmpty()) {
            return out;
        }
        java.util.Set<RecordId> want = new java.util.HashSet<>(ids);
        for (ConsumerRecord<String, String> r : batch) {
            if (want.contains(new RecordId(r.topic(), r.partition(), r.offset()))) {
                out.add(r);
            }
        }
        return out;
    }

    @Override
    public void close() {
        reader.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        admin.close(Duration.ofSeconds(5));
    }
}
