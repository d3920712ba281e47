package kafka.server.share;

import io.github.sharechaos.kip1289.persist.PendingSet;
import io.github.sharechaos.kip1289.persist.PendingSetBridge;
import io.github.sharechaos.kip1289.server.PendingLockPolicy;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidRecordStateException;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import kafka.server.ReplicaManager;

/**
 * This leader's pending transactional acknowledgements: every
 * {@link Kip1289PendingEntry}, by topic-partition, from TxnShareAcknowledge
 * until the marker of its transaction settles it (docs/KIP1289-ON-KAFKA.md,
 * sections 5-8), and the pending set each share-partition persists with its
 * state writes (PendingSetBridge): an entry is in it from before its
 * TxnShareAcknowledge is answered until after its settlement is written.
 *
 * <p>Locking: one monitor (this object) guards the entries and the markers
 * seen. Staging holds it across Kafka's acknowledge (which takes the
 * share-partition's write lock), the lock policy `expire` and a restore hold
 * it while they change records; nothing takes the monitor while holding a
 * share-partition's lock except a restore, which runs inside Kafka's
 * initialization of a share-partition that no other thread can reach yet.
 */
public final class Kip1289PendingAcks {

    private static final Logger log = LoggerFactory.getLogger(Kip1289PendingAcks.class);

    /** How often `expire` looks for pending records whose acquisition lock ran out. */
    private static final long LOCK_SWEEP_INTERVAL_MS = 100;
    /** Markers remembered per (partition, producer), for the staging race below. */
    private static final int MARKERS_REMEMBERED = 100_000;

    /** The broker's registry, for the restore hook in SharePartition (one broker per JVM). */
    private static volatile Kip1289PendingAcks current;

    private final PendingLockPolicy policy;
    private final ReplicaManager replicaManager;
    private final Map<TopicPartition, List<Kip1289PendingEntry>> entries = new HashMap<>();
    /** Entries claimed by a marker whose settlement is not written yet: still in the persisted set. */
    private final List<Kip1289PendingEntry> settling = new ArrayList<>();
    /** The sets published per share-partition so far: the low half of the next seq. */
    private final Map<String, Long> published = new HashMap<>();
    private final Map<MarkerKey, Marker> lastMarkers = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<MarkerKey, Marker> eldest) {
            return size() > MARKERS_REMEMBERED;
        }
    };
    private final ScheduledExecutorService lockSweeper;

    private record MarkerKey(TopicPartition partition, long producerId) {
    }

    private record Marker(long offset, short producerEpoch, TransactionResult result) {
    }

    public Kip1289PendingAcks(PendingLockPolicy policy, ReplicaManager replicaManager) {
        this.policy = policy;
        this.replicaManager = replicaManager;
        if (policy == PendingLockPolicy.EXPIRE) {
            lockSweeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "kip1289-pending-lock-expiry");
                t.setDaemon(true);
                return t;
            });
            lockSweeper.scheduleWithFixedDelay(this::sweepExpiredLocks, LOCK_SWEEP_INTERVAL_MS,
                LOCK_SWEEP_INTERVAL_MS, TimeUnit.MILLISECONDS);
        } else {
            lockSweeper = null;
        }
        current = this;
    }

    /** The broker's registry, or null before KafkaApis built it. */
    static Kip1289PendingAcks current() {
        return current;
    }

    public PendingLockPolicy policy() {
        return policy;
    }

    ReplicaManager replicaManager() {
        return replicaManager;
    }

    /**
     * Stages the acknowledgements of r, the first half of Kafka's acknowledge
     * per share-partition, and answers per partition once the pending set that
     * names them is written to the share coordinator: NONE (pending now, or
     * already pending under this transaction: a retry), INVALID_RECORD_STATE
     * (a record not acquired, by the member when named, or pending elsewhere, or
     * below the share start offset; also a share-partition this leader has not
     * loaded, where nothing can be acquired), INVALID_TXN_STATE (the
     * transaction's marker already reached this partition: it ended while the
     * request was verified), or the state write's error (nothing staged).
     *
     * <p>The race the marker check closes: the verification said the
     * transaction is open; before the records are staged, the transaction
     * aborts (a timeout) and its marker is appended and settles nothing here.
     * Staged after it, the entry would wait for the next marker of the
     * producer, maybe a COMMIT of its next transaction. The marker hook records
     * each marker under the monitor, and staging, under the same monitor,
     * refuses a partition whose marker of this producer and epoch is at or above
     * the stage offset.
     */
    public CompletableFuture<Map<TopicIdPartition, Errors>> stage(Kip1289StageRequest r, SharePartitionManager manager) {
        Map<TopicIdPartition, Errors> decided = new HashMap<>();
        Map<TopicIdPartition, List<ShareAcknowledgementBatch>> toStage = new HashMap<>();
        CompletableFuture<Map<TopicIdPartition, ShareAcknowledgeResponseData.PartitionData>> acked;
        synchronized (this) {
            r.partitions().forEach((tip, p) -> {
                Marker m = lastMarkers.get(new MarkerKey(tip.topicPartition(), r.producerId()));
                if (m != null && m.offset >= p.stageOffset() && m.producerEpoch >= r.producerEpoch()) {
                    decided.put(tip, Errors.INVALID_TXN_STATE);
                    return;
                }
                Kip1289PendingEntry e = find(r.groupId(), tip, r.producerId());
                if (e != null && e.producerEpoch == r.producerEpoch() && e.pendingCovers(p.batches())) {
                    decided.put(tip, Errors.NONE);
                    return;
                }
                toStage.put(tip, p.batches());
            });
            if (toStage.isEmpty()) {
                return CompletableFuture.completedFuture(decided);
            }
            acked = Kip1289Staging.during((sp, future, throwable, batches) -> onAcknowledged(r, sp, future, throwable, batches),
                () -> manager.acknowledge(r.memberId(), r.groupId(), toStage));
        }
        return acked.thenApply(results -> {
            Map<TopicIdPartition, Errors> out = new HashMap<>(decided);
            results.forEach((tip, pd) -> {
                Errors e = Errors.forCode(pd.errorCode());
                // Kafka's acknowledge says UNKNOWN_TOPIC_OR_PARTITION for a
                // share-partition this leader has not loaded, and
                // INVALID_REQUEST for offsets past the ones it handed out (the
                // batches themselves were checked well formed): either way
                // records nobody here acquired.
                if (e == Errors.UNKNOWN_TOPIC_OR_PARTITION || e == Errors.INVALID_REQUEST) {
                    e = Errors.INVALID_RECORD_STATE;
                }
                out.put(tip, e);
            });
            return out;
        });
    }

    /** The staging listener: called under the monitor, from Kafka's acknowledge. */
    private boolean onAcknowledged(Kip1289StageRequest r, Kip1289SharePartitionHandle sp, CompletableFuture<Void> future,
                                   Throwable throwable, List<SharePartition.PersisterBatch> batches) {
        if (throwable != null) {
            return false; // Kafka rolls the started transitions back and fails the partition
        }
        Kip1289StageRequest.Partition p = r.partitions().get(sp.topicIdPartition());
        if (p == null) {
            return false;
        }
        // Kafka's acknowledge skips offsets below the share start offset
        // (finalized before); in a transaction that is an ack of a record the
        // member does not hold.
        long start = sp.partition().startOffset();
        if (batches.isEmpty() || p.batches().stream().anyMatch(b -> b.firstOffset() < start)) {
            sp.partition().rollbackOrProcessStateUpdates(future,
                new InvalidRecordStateException("KIP-1289: offsets below the share start offset " + start), batches);
            return true;
        }
        Kip1289PendingEntry found = find(r.groupId(), sp.topicIdPartition(), r.producerId());
        if (found == null || found.producerEpoch != r.producerEpoch()) {
            found = new Kip1289PendingEntry(sp, r.transactionalId(), r.producerId(), r.producerEpoch(), p.stageOffset(), false);
            entries.computeIfAbsent(sp.topicIdPartition().topicPartition(), k -> new ArrayList<>()).add(found);
        }
        Kip1289PendingEntry e = found;
        e.pending.addAll(batches);
        publish(sp);
        log.debug("KIP-1289: staged {}", e);
        // Durable before the answer: an empty state write carries the set.
        sp.partition().writeShareGroupState(List.of()).whenComplete((ignored, ex) -> {
            if (ex == null) {
                future.complete(null);
                return;
            }
            log.warn("KIP-1289: writing the pending set of {} failed, nothing staged", e, ex);
            synchronized (this) {
                e.pending.removeAll(batches);
                if (e.pending.isEmpty() && e.lapsed.isEmpty()) {
                    remove(e);
                }
                publish(sp);
            }
            sp.partition().rollbackOrProcessStateUpdates(future, ex, batches);
        });
        return true;
    }

    /** The entry of (group, partition, producer), or null. Under the monitor. */
    private Kip1289PendingEntry find(String groupId, TopicIdPartition tip, long producerId) {
        List<Kip1289PendingEntry> list = entries.get(tip.topicPartition());
        if (list == null) {
            return null;
        }
        for (Kip1289PendingEntry e : list) {
            if (e.producerId == producerId && e.sharePartition.groupId().equals(groupId)
                && e.sharePartition.topicIdPartition().equals(tip)) {
                return e;
            }
        }
        return null;
    }

    private void remove(Kip1289PendingEntry e) {
        TopicPartition tp = e.sharePartition.topicIdPartition().topicPartition();
        List<Kip1289PendingEntry> list = entries.get(tp);
        if (list != null) {
            list.remove(e);
            if (list.isEmpty()) {
                entries.remove(tp);
            }
        }
    }

    /**
     * Publishes the share-partition's pending set (its entries registered and
     * settling) for the state writes to carry. Under the monitor.
     */
    void publish(Kip1289SharePartitionHandle sp) {
        List<PendingSet.Entry> out = new ArrayList<>();
        List<Kip1289PendingEntry> mine = new ArrayList<>(settling);
        mine.addAll(entries.getOrDefault(sp.topicIdPartition().topicPartition(), List.of()));
        for (Kip1289PendingEntry e : mine) {
            if (e.sharePartition.partition() == sp.partition()) {
                out.add(e.persisted());
            }
        }
        String key = sp.groupId() + ":" + sp.topicIdPartition();
        long n = published.merge(key, 1L, Long::sum);
        PendingSetBridge.publish(sp.groupId(), sp.topicIdPartition().topicId(), sp.topicIdPartition().partition(),
            new PendingSet(PendingSet.seq(sp.partition().leaderEpoch(), n), out));
    }

    /**
     * Settles what a transaction marker, just appended at markerOffset of tp,
     * ends on this leader (section 7), and completes when it is settled: the
     * caller answers WriteTxnMarkers for tp only then (the KAFKA-17507 lesson:
     * the producer's next transaction may stage on the same share-partition as
     * soon as the transaction coordinator has every answer). NONE, or
     * NOT_LEADER_OR_FOLLOWER when a COMMIT's state write failed: the transaction
     * coordinator resends the marker, whose append settles the entries kept.
     */
    public CompletableFuture<Errors> settle(TopicPartition tp, long producerId, short producerEpoch,
                                            TransactionResult result, long markerOffset) {
        List<Kip1289PendingEntry> claimed = claimForMarker(tp, producerId, producerEpoch, result, markerOffset);
        if (claimed.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (Kip1289PendingEntry e : claimed) {
            done.add(settleOne(e, result).whenComplete((ignored, ex) -> settled(e, ex == null)));
        }
        return CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0]))
            .handle((ignored, ex) -> ex == null ? Errors.NONE : Errors.NOT_LEADER_OR_FOLLOWER);
    }

    private CompletableFuture<Void> settleOne(Kip1289PendingEntry e, TransactionResult result) {
        return result == TransactionResult.COMMIT
            ? Kip1289Settlement.commit(e, replicaManager)
            : Kip1289Settlement.abort(e, replicaManager);
    }

    /**
     * Takes the entries a marker settles out of the registry into settling:
     * those of the marker's producer with epoch <= the marker's and stage
     * offset <= its offset (section 7's rule), and remembers the marker.
     */
    private synchronized List<Kip1289PendingEntry> claimForMarker(TopicPartition tp, long producerId, short producerEpoch,
                                                                  TransactionResult result, long markerOffset) {
        lastMarkers.put(new MarkerKey(tp, producerId), new Marker(markerOffset, producerEpoch, result));
        List<Kip1289PendingEntry> list = entries.get(tp);
        if (list == null) {
            return List.of();
        }
        List<Kip1289PendingEntry> out = new ArrayList<>();
        for (Iterator<Kip1289PendingEntry> it = list.iterator(); it.hasNext(); ) {
            Kip1289PendingEntry e = it.next();
            if (e.producerId == producerId && e.producerEpoch <= producerEpoch && e.stageOffset <= markerOffset) {
                out.add(e);
                settling.add(e);
                it.remove();
            }
        }
        if (list.isEmpty()) {
            entries.remove(tp);
        }
        return out;
    }

    /**
     * After a settlement's write: a settled entry leaves the pending set (the
     * next state write carries the smaller set); a failed one is registered
     * again for the marker's resend.
     */
    private synchronized void settled(Kip1289PendingEntry e, boolean ok) {
        settling.remove(e);
        if (!ok) {
            entries.computeIfAbsent(e.sharePartition.topicIdPartition().topicPartition(), k -> new ArrayList<>()).add(e);
        }
        publish(e.sharePartition);
    }

    /**
     * A restored entry (Kip1289Restore) whose marker the log did not hold:
     * registered for the live path, unless a marker of its producer arrived
     * meanwhile (after the restore's log scan, before now), which settles it
     * at once.
     */
    synchronized void registerRestored(Kip1289PendingEntry e) {
        TopicPartition tp = e.sharePartition.topicIdPartition().topicPartition();
        Marker m = lastMarkers.get(new MarkerKey(tp, e.producerId));
        if (m != null && m.offset >= e.stageOffset && m.producerEpoch >= e.producerEpoch) {
            settling.add(e);
            settleOne(e, m.result).whenComplete((ignored, ex) -> settled(e, ex == null));
            return;
        }
        entries.computeIfAbsent(tp, k -> new ArrayList<>()).add(e);
    }

    /**
     * A share-partition is loading here: entries of an earlier
     * SharePartition object of the same key (this broker led it before) are
     * dropped; the restore replaces them from the persisted set.
     */
    synchronized void dropStale(Kip1289SharePartitionHandle sp) {
        List<Kip1289PendingEntry> list = entries.get(sp.topicIdPartition().topicPartition());
        if (list != null) {
            list.removeIf(e -> e.sharePartition.groupId().equals(sp.groupId()) && e.sharePartition.partition() != sp.partition());
        }
        settling.removeIf(e -> e.sharePartition.groupId().equals(sp.groupId())
            && e.sharePartition.topicIdPartition().equals(sp.topicIdPartition()) && e.sharePartition.partition() != sp.partition());
    }

    /**
     * Lock policy `expire` (the KIP as written): a pending record whose
     * acquisition lock ran out is released as Kafka's lock timeout would
     * release an acquired one, and its acknowledgement lapses
     * (Kip1289Settlement#lapseExpired). Kafka's own timer task of the record
     * fired and left it alone (it acts on ACQUIRED records only); it is marked
     * expired, which is what this sweep looks for.
     */
    private void sweepExpiredLocks() {
        try {
            synchronized (this) {
                for (List<Kip1289PendingEntry> list : entries.values()) {
                    for (Kip1289PendingEntry e : list) {
                        List<org.apache.kafka.server.share.persister.PersisterStateBatch> released =
                            Kip1289Settlement.lapseExpired(e, replicaManager);
                        if (!released.isEmpty()) {
                            publish(e.sharePartition);
                            Kip1289Settlement.writeReleased(e, released, replicaManager);
                        }
                    }
                }
            }
        } catch (RuntimeException ex) {
            log.error("KIP-1289: pending lock sweep failed", ex);
        }
    }

    public void close() {
        if (lockSweeper != null) {
            lockSweeper.shutdownNow();
        }
    }
}
