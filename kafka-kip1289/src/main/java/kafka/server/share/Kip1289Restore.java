package kafka.server.share;

import io.github.sharechaos.kip1289.persist.PendingSet;
import io.github.sharechaos.kip1289.persist.PendingSetBridge;

import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.share.fetch.AcquisitionLockTimeoutHandler;
import org.apache.kafka.server.share.fetch.DeliveryCountOps;
import org.apache.kafka.server.share.fetch.InFlightBatch;
import org.apache.kafka.server.share.fetch.InFlightState;
import org.apache.kafka.server.share.fetch.RecordState;
import org.apache.kafka.server.share.metrics.SharePartitionMetrics;
import org.apache.kafka.server.share.persister.PersisterStateBatch;
import org.apache.kafka.server.util.timer.Timer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.apache.kafka.server.share.fetch.InFlightState.EMPTY_MEMBER_ID;

/**
 * A new leader's restore of the pending acknowledgements its predecessor
 * persisted (docs/KIP1289-ON-KAFKA.md, section 8), the hook at the end of
 * SharePartition.maybeInitialize's load of the persisted state batches, under
 * the share-partition's write lock and before it is ACTIVE, so no fetch can
 * hand a pending record out first.
 *
 * <p>For each persisted entry, the input partition's log is scanned from its
 * stage offset for its marker (Kip1289MarkerScan). Found, the outcome is
 * applied to the records at once: COMMIT gives each its acknowledged state,
 * ABORT makes it AVAILABLE (ARCHIVED at the delivery limit), and both are
 * written. Not found, the transaction is still open: the records are put back
 * as pending (ACQUIRED by nobody under a started transition to their
 * acknowledged state) and the entry is registered for the marker the
 * transaction coordinator will send here. Under `expire` a restored entry gets
 * no lock: it holds until its marker (a simplification).
 */
final class Kip1289Restore {

    private static final Logger log = LoggerFactory.getLogger(Kip1289Restore.class);

    private Kip1289Restore() {
    }

    /** Hook (SharePartition.maybeInitialize). Never throws: a failed restore leaves Kafka's own load. */
    static void restore(Kip1289SharePartitionHandle sp, NavigableMap<Long, InFlightBatch> cachedState, long startOffset,
                        Timer timer, Time time, AcquisitionLockTimeoutHandler timeoutHandler, SharePartitionMetrics metrics) {
        try {
            Kip1289PendingAcks registry = Kip1289PendingAcks.current();
            if (registry == null) {
                return;
            }
            PendingSet set = PendingSetBridge.takeReceived(sp.groupId(), sp.topicIdPartition().topicId(), sp.topicIdPartition().partition());
            if (set == null || set.entries().isEmpty()) {
                CompletableFuture.runAsync(() -> registry.dropStale(sp));
                return;
            }
            new Kip1289Restore.Run(registry, sp, cachedState, startOffset, timer, time, timeoutHandler, metrics).restore(set);
        } catch (RuntimeException e) {
            log.error("KIP-1289: restoring the pending acks of {} failed; its records load as Kafka persisted them", sp, e);
        }
    }

    /** One restore's state. */
    private record Run(Kip1289PendingAcks registry, Kip1289SharePartitionHandle sp, NavigableMap<Long, InFlightBatch> cachedState,
                       long startOffset, Timer timer, Time time, AcquisitionLockTimeoutHandler timeoutHandler,
                       SharePartitionMetrics metrics) {

        void restore(PendingSet set) {
            List<PersisterStateBatch> toWrite = new ArrayList<>();
            List<Kip1289PendingEntry> open = new ArrayList<>();
            List<String> described = new ArrayList<>();
            for (PendingSet.Entry pe : set.entries()) {
                Optional<Kip1289MarkerScan.Found> marker;
                try {
                    marker = Kip1289MarkerScan.find(registry.replicaManager(), sp.topicIdPartition().topicPartition(),
                        pe.producerId(), pe.producerEpoch(), pe.stageOffset());
                } catch (Exception e) {
                    log.warn("KIP-1289: scanning the log of {} for the marker of {} failed; kept pending", sp, pe, e);
                    marker = Optional.empty();
                }
                if (marker.isPresent()) {
                    settleNow(pe, marker.get().result(), toWrite);
                } else {
                    open.add(pending(pe));
                }
                described.add(describe(pe, marker));
            }
            // Each entry named, so that a failover's outcome can be read from
            // the INFO log alone (FINDINGS 27 needed a DEBUG image for it).
            log.info("KIP-1289: {} restored {} pending entries ({} settled from the log, {} still open): {}",
                sp, set.entries().size(), set.entries().size() - open.size(), open.size(), String.join("; ", described));
            // The registry's monitor is taken before a share-partition's lock
            // elsewhere (staging holds it across Kafka's acknowledge, which
            // waits for this initialization): so not here, under the lock, but
            // once the initialization released it. The records are pending
            // already; a marker that comes meanwhile is remembered and settles
            // the entry when it registers.
            CompletableFuture.runAsync(() -> {
                registry.dropStale(sp);
                for (Kip1289PendingEntry e : open) {
                    registry.registerRestored(e);
                }
                synchronized (registry) {
                    registry.publish(sp);
                }
                if (!toWrite.isEmpty()) {
                    sp.partition().writeShareGroupState(toWrite).whenComplete((ignored, ex) -> {
                        if (ex != null) {
                            log.warn("KIP-1289: writing the states {} settled at restore failed", toWrite, ex);
                        }
                    });
                }
            });
        }

        /** One entry as the restore log names it: whose, which offsets, and what the scan found. */
        private static String describe(PendingSet.Entry pe, Optional<Kip1289MarkerScan.Found> marker) {
            StringBuilder b = new StringBuilder()
                .append(pe.transactionalId()).append(" (producer ").append(pe.producerId())
                .append(" epoch ").append(pe.producerEpoch()).append(", staged at ").append(pe.stageOffset()).append(") offsets ");
            for (int i = 0; i < pe.ranges().size(); i++) {
                PendingSet.Range r = pe.ranges().get(i);
                b.append(i == 0 ? "" : ",").append(r.firstOffset()).append('-').append(r.lastOffset());
            }
            marker.ifPresentOrElse(
                m -> b.append(": ").append(m.result()).append(" marker at ").append(m.offset()).append(" (epoch ").append(m.producerEpoch()).append(')'),
                () -> b.append(": open"));
            return b.toString();
        }

        /** The marker is in the log: the outcome applies now. */
        private void settleNow(PendingSet.Entry pe, TransactionResult result, List<PersisterStateBatch> toWrite) {
            int max = sp.partition().maxDeliveryCount();
            for (PendingSet.Range r : pe.ranges()) {
                long first = Math.max(r.firstOffset(), startOffset);
                if (first > r.lastOffset()) {
                    continue;
                }
                RecordState tentative = RecordState.forId(r.tentativeState());
                RecordState state;
                if (result == TransactionResult.COMMIT) {
                    if (r.lapsed() && tentative == RecordState.AVAILABLE) {
                        continue; // a lapsed release: released already
                    }
                    state = tentative;
                } else {
                    if (r.lapsed()) {
                        continue; // released already when it lapsed
                    }
                    state = r.deliveryCount() >= max ? RecordState.ARCHIVED : RecordState.AVAILABLE;
                }
                InFlightBatch b = place(first, r.lastOffset(), state, r.deliveryCount());
                if (state == RecordState.ACKNOWLEDGED || state == RecordState.ARCHIVED) {
                    sp.deliveryCompleteCount().addAndGet((int) (r.lastOffset() - first + 1));
                }
                toWrite.add(new PersisterStateBatch(b.firstOffset(), b.lastOffset(), state.id(), r.deliveryCount()));
            }
        }

        /** The transaction is open: its records are pending again, under a restored entry. */
        private Kip1289PendingEntry pending(PendingSet.Entry pe) {
            Kip1289PendingEntry e = new Kip1289PendingEntry(sp, pe.transactionalId(), pe.producerId(), pe.producerEpoch(),
                pe.stageOffset(), true);
            int max = sp.partition().maxDeliveryCount();
            for (PendingSet.Range r : pe.ranges()) {
                long first = Math.max(r.firstOffset(), startOffset);
                if (first > r.lastOffset()) {
                    continue;
                }
                RecordState tentative = RecordState.forId(r.tentativeState());
                if (r.lapsed()) {
                    e.lapsed.add(new Kip1289PendingEntry.LapsedAck(first, r.lastOffset(), tentative, r.deliveryCount()));
                    continue;
                }
                InFlightBatch b = place(first, r.lastOffset(), RecordState.ACQUIRED, r.deliveryCount());
                InFlightState started = b.startBatchStateTransition(tentative, DeliveryCountOps.NO_OP, max, EMPTY_MEMBER_ID);
                if (started == null) {
                    log.warn("KIP-1289: {} could not restore offsets {}-{} as pending", sp, first, r.lastOffset());
                    continue;
                }
                if (tentative == RecordState.ACKNOWLEDGED || tentative == RecordState.ARCHIVED) {
                    // As staging counts a tentative terminal state (Kafka's acknowledge does).
                    sp.deliveryCompleteCount().addAndGet((int) (r.lastOffset() - first + 1));
                }
                e.pending.add(new SharePartition.PersisterBatch(started,
                    new PersisterStateBatch(first, r.lastOffset(), r.tentativeState(), r.deliveryCount())));
            }
            return e;
        }

        /**
         * Makes [first, last] one batch of the cached state, in state: the
         * persisted batches it overlaps are cut around it (their parts outside
         * keep their state), and offsets between the previous batch (or the
         * start offset) and first that the cached state lacks become AVAILABLE
         * batches, so that the share-partition has no hole it would never fetch.
         */
        private InFlightBatch place(long first, long last, RecordState state, int deliveryCount) {
            for (Map.Entry<Long, InFlightBatch> en : new ArrayList<>(cachedState.subMap(Long.MIN_VALUE, true, last, true).entrySet())) {
                InFlightBatch old = en.getValue();
                if (old.lastOffset() < first) {
                    continue;
                }
                cachedState.remove(en.getKey());
                if (old.firstOffset() < first) {
                    put(old.firstOffset(), first - 1, old.batchState(), old.batchDeliveryCount());
                }
                if (old.lastOffset() > last) {
                    put(last + 1, old.lastOffset(), old.batchState(), old.batchDeliveryCount());
                }
            }
            Map.Entry<Long, InFlightBatch> before = cachedState.floorEntry(first - 1);
            long holeFrom = before == null ? startOffset : before.getValue().lastOffset() + 1;
            if (holeFrom < first) {
                put(holeFrom, first - 1, RecordState.AVAILABLE, 0);
            }
            return put(first, last, state, deliveryCount);
        }

        private InFlightBatch put(long first, long last, RecordState state, int deliveryCount) {
            InFlightBatch b = new InFlightBatch(timer, time, EMPTY_MEMBER_ID, first, last, state, deliveryCount, null,
                timeoutHandler, metrics);
            cachedState.put(first, b);
            return b;
        }
    }
}
