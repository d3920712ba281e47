package kafka.server.share;

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
 * sections 5-7).
 *
 * <p>Locking: one monitor (this object) guards the entries and the markers
 * seen. Staging holds it across Kafka's acknowledge (which takes the
 * share-partition's write lock), and the lock policy `expire` holds it while it
 * rolls lapsed records back; nothing takes the monitor while holding a
 * share-partition's lock, so the order is always monitor, then share-partition.
 */
public final class Kip1289PendingAcks {

    private static final Logger log = LoggerFactory.getLogger(Kip1289PendingAcks.class);

    /** How often `expire` looks for pending records whose acquisition lock ran out. */
    private static final long LOCK_SWEEP_INTERVAL_MS = 100;
    /** Markers remembered per (partition, producer), for the staging race below. */
    private static final int MARKERS_REMEMBERED = 100_000;

    private final PendingLockPolicy policy;
    private final ReplicaManager replicaManager;
    private final Map<TopicPartition, List<Kip1289PendingEntry>> entries = new HashMap<>();
    private final Map<MarkerKey, Marker> lastMarkers = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<MarkerKey, Marker> eldest) {
            return size() > MARKERS_REMEMBERED;
        }
    };
    private final ScheduledExecutorService lockSweeper;

    private record MarkerKey(TopicPartition partition, long producerId) {
    }

    private record Marker(long offset, short producerEpoch) {
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
    }

    public PendingLockPolicy policy() {
        return policy;
    }

    /**
     * Stages the acknowledgements of r, the first half of Kafka's acknowledge
     * per share-partition, and answers per partition: NONE (pending now, or
     * already pending under this transaction: a retry), INVALID_RECORD_STATE
     * (a record not acquired, by the member when named, or pending elsewhere, or
     * below the share start offset; also a share-partition this leader has not
     * loaded, where nothing can be acquired), INVALID_TXN_STATE (the
     * transaction's marker already reached this partition: it ended while the
     * request was verified).
     *
     * <p>The race this closes: the verification said the transaction is open;
     * before the records are staged, the transaction aborts (a timeout) and its
     * marker is appended and settles nothing here. Staged after it, the entry
     * would wait for the next marker of the producer, maybe a COMMIT of its next
     * transaction. The marker hook records each marker under the monitor, and
     * staging, under the same monitor, refuses a partition whose marker of this
     * producer and epoch is at or above the stage offset.
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
        Kip1289PendingEntry e = find(r.groupId(), sp.topicIdPartition(), r.producerId());
        if (e == null || e.producerEpoch != r.producerEpoch()) {
            e = new Kip1289PendingEntry(sp, r.transactionalId(), r.producerId(), r.producerEpoch(), p.stageOffset());
            entries.computeIfAbsent(sp.topicIdPartition().topicPartition(), k -> new ArrayList<>()).add(e);
        }
        e.pending.addAll(batches);
        log.debug("KIP-1289: staged {}", e);
        future.complete(null);
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

    /**
     * Takes the entries a marker settles out of the registry: those of the
     * marker's producer with epoch <= the marker's and stage offset <= its
     * offset (section 7's rule), and remembers the marker.
     */
    private synchronized List<Kip1289PendingEntry> claimForMarker(TopicPartition tp, long producerId, short producerEpoch, long markerOffset) {
        lastMarkers.put(new MarkerKey(tp, producerId), new Marker(markerOffset, producerEpoch));
        List<Kip1289PendingEntry> list = entries.get(tp);
        if (list == null) {
            return List.of();
        }
        List<Kip1289PendingEntry> out = new ArrayList<>();
        for (Iterator<Kip1289PendingEntry> it = list.iterator(); it.hasNext(); ) {
            Kip1289PendingEntry e = it.next();
            if (e.producerId == producerId && e.producerEpoch <= producerEpoch && e.stageOffset <= markerOffset) {
                out.add(e);
                it.remove();
            }
        }
        if (list.isEmpty()) {
            entries.remove(tp);
        }
        return out;
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
        List<Kip1289PendingEntry> claimed = claimForMarker(tp, producerId, producerEpoch, markerOffset);
        if (claimed.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        if (result == TransactionResult.ABORT) {
            claimed.forEach(e -> Kip1289Settlement.abort(e, replicaManager));
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        List<CompletableFuture<Void>> commits = new ArrayList<>();
        for (Kip1289PendingEntry e : claimed) {
            commits.add(Kip1289Settlement.commit(e, replicaManager).whenComplete((ignored, ex) -> {
                if (ex != null) {
                    restore(e);
                }
            }));
        }
        return CompletableFuture.allOf(commits.toArray(new CompletableFuture<?>[0]))
            .handle((ignored, ex) -> ex == null ? Errors.NONE : Errors.NOT_LEADER_OR_FOLLOWER);
    }

    /** Puts back an entry whose settlement failed: the marker's resend settles it. */
    private synchronized void restore(Kip1289PendingEntry e) {
        entries.computeIfAbsent(e.sharePartition.topicIdPartition().topicPartition(), k -> new ArrayList<>()).add(e);
    }

    /**
     * Lock policy `expire` (the KIP as written): a pending record whose
     * acquisition lock ran out is released as Kafka's lock timeout would
     * release an acquired one, and its acknowledgement lapses
     * (Kip1289Settlement#lapse). Kafka's own timer task of the record fired
     * and left it alone (it acts on ACQUIRED records only); it is marked
     * expired, which is what this sweep looks for.
     */
    private void sweepExpiredLocks() {
        try {
            synchronized (this) {
                for (List<Kip1289PendingEntry> list : entries.values()) {
                    for (Kip1289PendingEntry e : list) {
                        Kip1289Settlement.lapseExpired(e, replicaManager);
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
