package io.github.sharechaos.kip1289.persist;

import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.coordinator.share.ShareGroupOffset;
import org.apache.kafka.server.share.SharePartitionKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a share-partition's stored start offset from going backwards within a
 * state epoch (docs/FINDINGS.md 25).
 *
 * <p>Why: a leader's WriteShareGroupState carries the start offset of the
 * moment it was made, and the persister resends it after NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS or a timeout, on its own backoff. A resent
 * write can land after a newer one that moved the start offset on and pruned
 * the batches below it; Kafka 4.3's share coordinator takes the late start
 * offset as given, so the acknowledged records between the two come back
 * AVAILABLE at delivery 0. Under KIP-1289 that redelivers records whose acks
 * committed with their transaction's output. The guard is what Kafka 4.4 does
 * (apache/kafka #23074 for the start offset, #23112 for the delivery-complete
 * count); only the share coordinator's initialize (a new state epoch, an
 * admin reset) may move the start offset back.
 *
 * <p>Each write it changes is logged at INFO, naming the late start offset and
 * the stored one, so a run's broker logs show where a late write landed.
 */
public final class StartOffsetGuard {

    private static final Logger LOG = LoggerFactory.getLogger(StartOffsetGuard.class);

    private StartOffsetGuard() {
    }

    /**
     * Hook (ShareCoordinatorShard.writeState, before the record is made):
     * raises written's start offset to the stored one when it is lower, and
     * chooses the delivery-complete count that goes with the start offset the
     * write will keep. stored is the share-partition's current state (null:
     * nothing stored, nothing to guard).
     */
    public static void guard(SharePartitionKey key, ShareGroupOffset stored,
                             WriteShareGroupStateRequestData.PartitionData written) {
        if (stored == null || written.startOffset() == -1 || stored.startOffset() == -1) {
            return;
        }
        long writtenStart = written.startOffset();
        long storedStart = stored.startOffset();
        if (writtenStart < storedStart) {
            LOG.info("sharechaos KIP-1289: a late state write of {} (leader epoch {}, {} state batches) " +
                    "would lower the start offset from {} to {}; kept {}, and the delivery-complete count {} (not {})",
                key, written.leaderEpoch(), written.stateBatches().size(), storedStart, writtenStart,
                storedStart, stored.deliveryCompleteCount(), written.deliveryCompleteCount());
            written.setStartOffset(storedStart);
            written.setDeliveryCompleteCount(stored.deliveryCompleteCount());
        } else if (writtenStart == storedStart && stored.deliveryCompleteCount() > written.deliveryCompleteCount()) {
            // The same start offset: the count only grows until the start
            // offset moves on, so the higher one is the newer.
            written.setDeliveryCompleteCount(stored.deliveryCompleteCount());
        }
    }
}
