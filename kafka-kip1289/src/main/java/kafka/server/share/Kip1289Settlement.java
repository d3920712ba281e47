package kafka.server.share;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.server.share.fetch.DelayedShareFetchGroupKey;
import org.apache.kafka.server.share.fetch.DeliveryCountOps;
import org.apache.kafka.server.share.fetch.InFlightBatch;
import org.apache.kafka.server.share.fetch.InFlightState;
import org.apache.kafka.server.share.fetch.RecordState;
import org.apache.kafka.server.share.persister.PersisterStateBatch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import kafka.server.ReplicaManager;

import static org.apache.kafka.server.share.fetch.InFlightState.EMPTY_MEMBER_ID;

/**
 * What the end of a transaction does to its pending acknowledgements on one
 * share-partition (docs/KIP1289-ON-KAFKA.md, sections 5-7): COMMIT is the
 * second half of Kafka's acknowledge (write the new states, then complete the
 * transitions and move the start offset); ABORT is Kafka's own rollback of a
 * failed acknowledgement (to ACQUIRED by the holder while its lock runs, else
 * AVAILABLE, ARCHIVED at the delivery limit). And what the lock policy
 * `expire` does to a pending record whose lock runs out.
 */
final class Kip1289Settlement {

    private static final Logger log = LoggerFactory.getLogger(Kip1289Settlement.class);

    /** The cause a rolled-back transition is completed with (Kafka logs it at debug). */
    private static final KafkaException ABORTED = new KafkaException("KIP-1289: the transaction aborted");
    private static final KafkaException LAPSED = new KafkaException("KIP-1289: the acquisition lock of a pending record expired");

    private Kip1289Settlement() {
    }

    /**
     * COMMIT: the new states are written to the share coordinator, then the
     * transitions complete. A failed write is not rolled back: the outcome is
     * decided, and ACQUIRED again would redeliver committed input. The future
     * fails instead, and the caller keeps the entry for the marker's resend.
     */
    static CompletableFuture<Void> commit(Kip1289PendingEntry e, ReplicaManager replicaManager) {
        Kip1289SharePartitionHandle sp = e.sharePartition;
        List<SharePartition.PersisterBatch> toComplete = new ArrayList<>(e.pending);
        List<SharePartition.PersisterBatch> fromLapsed = applyLapsed(e);
        toComplete.addAll(fromLapsed);
        if (toComplete.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<PersisterStateBatch> states = toComplete.stream().map(SharePartition.PersisterBatch::stateBatch).toList();
        CompletableFuture<Void> done = new CompletableFuture<>();
        sp.partition().writeShareGroupState(states).whenComplete((ignored, ex) -> {
            if (ex != null) {
                log.warn("KIP-1289: COMMIT of {}: state write failed, kept pending for the marker's resend", e, ex);
                // Lapsed acks are applied afresh on the next attempt.
                if (!fromLapsed.isEmpty()) {
                    sp.partition().rollbackOrProcessStateUpdates(new CompletableFuture<>(), ex, fromLapsed);
                }
                done.completeExceptionally(ex);
                return;
            }
            boolean moved;
            sp.lock().writeLock().lock();
            try {
                for (SharePartition.PersisterBatch b : toComplete) {
                    b.updatedState().completeStateTransition(true);
                    if (b.updatedState().state() == RecordState.AVAILABLE) {
                        sp.partition().updateFindNextFetchOffset(true);
                    }
                }
                moved = sp.updateCachedStateAndOffsets().getAsBoolean();
            } finally {
                sp.lock().writeLock().unlock();
            }
            log.debug("KIP-1289: committed {} (start offset moved: {})", e, moved);
            done.complete(null);
            wakeFetches(sp, replicaManager);
        });
        return done;
    }

    /**
     * ABORT: Kafka's rollback of the started transitions (to ACQUIRED by the
     * holder while its lock runs, else AVAILABLE, ARCHIVED at the delivery
     * limit), then a state write of the records that became AVAILABLE or
     * ARCHIVED, which also carries the pending set still naming this entry:
     * the settlement is durable once a later write carries the set without it
     * (Kip1289PendingAcks.settled), and a new leader that finds the entry still
     * listed finds the ABORT marker in the log. Records acquired again are not
     * written: Kafka never persists ACQUIRED. A restored entry's records were
     * acquired by nobody, so they are made AVAILABLE.
     */
    static CompletableFuture<Void> abort(Kip1289PendingEntry e, ReplicaManager replicaManager) {
        Kip1289SharePartitionHandle sp = e.sharePartition;
        List<PersisterStateBatch> released = new ArrayList<>();
        if (!e.pending.isEmpty()) {
            sp.partition().rollbackOrProcessStateUpdates(new CompletableFuture<>(), ABORTED, e.pending);
            sp.lock().writeLock().lock();
            try {
                for (SharePartition.PersisterBatch b : e.pending) {
                    InFlightState s = b.updatedState();
                    if (e.restored && s.state() == RecordState.ACQUIRED && EMPTY_MEMBER_ID.equals(s.memberId())) {
                        s.tryUpdateState(RecordState.AVAILABLE, DeliveryCountOps.NO_OP, sp.partition().maxDeliveryCount(), EMPTY_MEMBER_ID);
                        sp.partition().updateFindNextFetchOffset(true);
                    }
                    if (s.state() != RecordState.ACQUIRED) {
                        released.add(new PersisterStateBatch(b.stateBatch().firstOffset(), b.stateBatch().lastOffset(),
                            s.state().id(), (short) s.deliveryCount()));
                    }
                }
            } finally {
                sp.lock().writeLock().unlock();
            }
        }
        log.debug("KIP-1289: aborted {}", e);
        wakeFetches(sp, replicaManager);
        CompletableFuture<Void> done = new CompletableFuture<>();
        sp.partition().writeShareGroupState(released).whenComplete((ignored, ex) -> {
            if (ex != null) {
                // Decided and applied; a new leader finds the marker if the
                // set still names the entry.
                log.debug("KIP-1289: writing the aborted state of {} failed", e, ex);
            }
            done.complete(null);
        });
        return done;
    }

    /**
     * Policy `expire`: rolls back each pending transition of e whose
     * acquisition lock has expired (to AVAILABLE, or ARCHIVED at the delivery
     * limit, as Kafka's rollback does for an expired lock) and keeps the
     * acknowledgement as lapsed; returns the released states, which the caller
     * writes (writeReleased) once the pending set says lapsed. Called under the
     * registry's monitor.
     */
    static List<PersisterStateBatch> lapseExpired(Kip1289PendingEntry e, ReplicaManager replicaManager) {
        List<SharePartition.PersisterBatch> expired = new ArrayList<>();
        for (Iterator<SharePartition.PersisterBatch> it = e.pending.iterator(); it.hasNext(); ) {
            SharePartition.PersisterBatch b = it.next();
            var task = b.updatedState().acquisitionLockTimeoutTask();
            if (task != null && task.hasExpired()) {
                expired.add(b);
                it.remove();
                e.lapsed.add(new Kip1289PendingEntry.LapsedAck(b.stateBatch().firstOffset(), b.stateBatch().lastOffset(),
                    RecordState.forId(b.stateBatch().deliveryState()), b.stateBatch().deliveryCount()));
            }
        }
        if (expired.isEmpty()) {
            return List.of();
        }
        Kip1289SharePartitionHandle sp = e.sharePartition;
        sp.partition().rollbackOrProcessStateUpdates(new CompletableFuture<>(), LAPSED, expired);
        List<PersisterStateBatch> states = new ArrayList<>();
        for (SharePartition.PersisterBatch b : expired) {
            states.add(new PersisterStateBatch(b.stateBatch().firstOffset(), b.stateBatch().lastOffset(),
                b.updatedState().state().id(), (short) b.updatedState().deliveryCount()));
        }
        log.debug("KIP-1289: lock expired under policy expire, released {} of {}", states, e);
        wakeFetches(sp, replicaManager);
        return states;
    }

    /** Writes what lapseExpired released, as Kafka's lock timeout writes a released record. */
    static void writeReleased(Kip1289PendingEntry e, List<PersisterStateBatch> states, ReplicaManager replicaManager) {
        Kip1289SharePartitionHandle sp = e.sharePartition;
        sp.partition().writeShareGroupState(states).whenComplete((ignored, ex) -> {
            if (ex != null) {
                log.debug("KIP-1289: writing the released state of {} failed", e, ex);
            }
            // A record archived at the delivery limit may let the start offset move.
            if (sp.updateCachedStateAndOffsets().getAsBoolean()) {
                wakeFetches(sp, replicaManager);
            }
        });
    }

    /**
     * Policy `expire`, at COMMIT: a lapsed ACCEPT or REJECT still applies to its
     * record if the record is AVAILABLE or ACQUIRED (by anyone) and not pending
     * in another transaction; otherwise it is skipped (the reference broker's
     * rule, refbroker/kfake/sharechaos_kip1289_state.go settleShareTxn). A lapsed
     * RELEASE is skipped: the record was released already. Returns the started
     * transitions, to be written and completed with the entry's.
     */
    private static List<SharePartition.PersisterBatch> applyLapsed(Kip1289PendingEntry e) {
        if (e.lapsed.isEmpty()) {
            return List.of();
        }
        Kip1289SharePartitionHandle sp = e.sharePartition;
        List<SharePartition.PersisterBatch> out = new ArrayList<>();
        sp.lock().writeLock().lock();
        try {
            long start = sp.partition().startOffset();
            for (Kip1289PendingEntry.LapsedAck a : e.lapsed) {
                if (a.tentativeState() != RecordState.ACKNOWLEDGED && a.tentativeState() != RecordState.ARCHIVED) {
                    continue;
                }
                for (long o = Math.max(a.firstOffset(), start); o <= a.lastOffset(); o++) {
                    InFlightState s = offsetState(sp.partition(), o);
                    if (s == null || s.hasOngoingStateTransition()) {
                        continue;
                    }
                    if (s.state() == RecordState.AVAILABLE) {
                        // Kafka's state machine goes from AVAILABLE only to
                        // ACQUIRED; the record is finalized through it, with
                        // no new delivery.
                        s.tryUpdateState(RecordState.ACQUIRED, DeliveryCountOps.NO_OP, sp.partition().maxDeliveryCount(), EMPTY_MEMBER_ID);
                    }
                    if (s.state() != RecordState.ACQUIRED) {
                        continue;
                    }
                    InFlightState started = s.startStateTransition(a.tentativeState(), DeliveryCountOps.NO_OP,
                        sp.partition().maxDeliveryCount(), EMPTY_MEMBER_ID);
                    if (started == null) {
                        continue;
                    }
                    sp.deliveryCompleteCount().incrementAndGet();
                    out.add(new SharePartition.PersisterBatch(started,
                        new PersisterStateBatch(o, o, started.state().id(), (short) started.deliveryCount())));
                }
            }
        } finally {
            sp.lock().writeLock().unlock();
        }
        return out;
    }

    /** The in-flight state of one offset, splitting its batch into offsets if needed; under the lock. */
    private static InFlightState offsetState(SharePartition partition, long offset) {
        Map.Entry<Long, InFlightBatch> floor = partition.cachedState().floorEntry(offset);
        if (floor == null || floor.getValue().lastOffset() < offset) {
            return null;
        }
        InFlightBatch batch = floor.getValue();
        if (batch.offsetState() == null) {
            batch.maybeInitializeOffsetStateUpdate();
        }
        return batch.offsetState().get(offset);
    }

    /** Share fetches waiting on this share-partition look again: records may be available. */
    static void wakeFetches(Kip1289SharePartitionHandle sp, ReplicaManager replicaManager) {
        replicaManager.completeDelayedShareFetchRequest(new DelayedShareFetchGroupKey(sp.groupId(),
            sp.topicIdPartition().topicId(), sp.topicIdPartition().partition()));
    }
}
