package sharechaos.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The loop's share consumer: Kafka's KafkaShareConsumer, in implicit
 * acknowledgement mode for the implicit loop and explicit mode for the
 * explicit and transactional (ledger) loops, with
 * {@code share.acquire.mode=record_limit} and {@code max.poll.records} set to
 * the config's max_records: one fetch per poll of at most that many records,
 * no prefetch (kgo's ShareMaxRecordsStrict).
 *
 * <p>Not thread-safe (neither is the consumer): only the loop's thread calls it.
 */
final class ShareSource implements AutoCloseable {
    private final KafkaShareConsumer<String, String> consumer;
    private final boolean explicit;
    private final String topic;
    private long lastPollNanos;

    ShareSource(Properties props, boolean explicit, String topic, org.apache.kafka.clients.consumer.AcknowledgementCommitCallback callback) {
        this.consumer = new KafkaShareConsumer<>(props);
        this.explicit = explicit;
        this.topic = topic;
        consumer.setAcknowledgementCommitCallback(callback);
        consumer.subscribe(List.of(topic));
    }

    /** Acquires at most max_records records, waiting up to timeout. */
    List<ConsumerRecord<String, String>> poll(Duration timeout) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        for (ConsumerRecord<String, String> r : consumer.poll(timeout)) {
            out.add(r);
        }
        if (!out.isEmpty()) {
            lastPollNanos = System.nanoTime();
        }
        return out;
    }

    /** When the last non-empty poll returned (System.nanoTime). */
    long lastPollNanos() {
        return lastPollNanos;
    }

    /** The acquisition lock the broker gave the last fetch, if it said. */
    Optional<Integer> lockMs() {
        return consumer.acquisitionLockTimeoutMs();
    }

    /** What one acknowledgement commit returned. */
    static final class AckResult {
        /** "topic/partition: error" for every partition the broker refused, and every record the client would not take. */
        final List<String> rejected = new ArrayList<>();
        /** A failure that leaves the outcome unknown (commitSync threw); null when it returned. */
        Exception error;
        /** Records a renew's poll acquired that were of no batch, and released. */
        int strays;
    }

    /**
     * Acknowledges batch with type and commits the acknowledgements
     * synchronously (explicit mode): the result names what the broker refused
     * per partition. A record the client no longer holds (it dropped the
     * in-flight batch after a failover, or a renew of it failed) is refused
     * by acknowledge itself: it is named as rejected, and the ack never went.
     */
    AckResult ack(AcknowledgeType type, List<ConsumerRecord<String, String>> batch, Duration timeout) {
        AckResult res = new AckResult();
        if (!explicit) {
            throw new IllegalStateException("ack in implicit mode");
        }
        int taken = 0;
        for (ConsumerRecord<String, String> r : batch) {
            try {
                consumer.acknowledge(r, type);
                taken++;
            } catch (IllegalStateException e) {
                res.rejected.add(r.topic() + "/" + r.partition() + "/" + r.offset() + ": the client refused the acknowledgement: " + e.getMessage());
            }
        }
        if (taken == 0) {
            return res;
        }
        try {
            Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync(timeout);
            for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : result.entrySet()) {
                if (e.getValue().isPresent()) {
                    KafkaException ex = e.getValue().get();
                    res.rejected.add(e.getKey().topic() + "/" + e.getKey().partition() + ": " + Worker.msg(ex));
                }
            }
        } catch (RuntimeException e) {
            res.error = e;
        }
        return res;
    }

    /**
     * Renews the locks of batch (RENEW, committed synchronously) and polls at
     * once, without waiting, so the renewed records are in flight again: Kafka's
     * client hands a renewed record back only through poll, and refuses to
     * acknowledge it until then. The result is the RENEW's, as an ack's: the
     * partitions the broker refused and the records the client would not
     * take, or the commitSync failure that leaves the outcome unknown; a
     * renewed record the poll did not hand back is rejected too (the worker
     * no longer holds it: the client refuses to acknowledge it). Records
     * whose renew failed are dropped by the client. Records the poll brought
     * that are not of batch (none expected: no prefetch) are released.
     */
    AckResult renew(List<ConsumerRecord<String, String>> batch, Duration timeout) {
        AckResult res = ack(AcknowledgeType.RENEW, batch, timeout);
        boolean failed = !res.rejected.isEmpty() || res.error != null;
        Set<String> want = new HashSet<>();
        for (ConsumerRecord<String, String> r : batch) {
            want.add(r.topic() + "/" + r.partition() + "/" + r.offset());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        Set<String> back = new HashSet<>();
        List<ConsumerRecord<String, String>> strays = new ArrayList<>();
        while (back.size() < want.size() && System.nanoTime() < deadline) {
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ZERO)) {
                got.add(r);
            }
            if (got.isEmpty() && failed) {
                break; // what failed to renew will not come back
            }
            for (ConsumerRecord<String, String> r : got) {
                String k = r.topic() + "/" + r.partition() + "/" + r.offset();
                if (want.contains(k)) {
                    back.add(k);
                } else {
                    strays.add(r);
                }
            }
            if (got.isEmpty()) {
                sleep(10);
            }
        }
        if (!strays.isEmpty()) {
            // Not the renew's outcome: the strays go back, and only the reader hears of it.
            ack(AcknowledgeType.RELEASE, strays, timeout);
            res.strays = strays.size();
        }
        if (back.size() < want.size() && res.error == null) {
            res.rejected.add((want.size() - back.size()) + " of " + want.size() + " renewed records not handed back by poll");
        }
        return res;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String topic() {
        return topic;
    }

    /**
     * Closes the consumer: in explicit mode it commits acknowledgements still
     * pending and releases what it holds; in implicit mode it releases the
     * last poll's records (KafkaShareConsumer.close). The acknowledgement
     * commit callback reports what close sent.
     */
    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(10));
    }
}
