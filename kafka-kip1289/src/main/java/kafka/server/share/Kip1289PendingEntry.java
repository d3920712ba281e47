package kafka.server.share;

import io.github.sharechaos.kip1289.persist.PendingSet;

import org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch;
import org.apache.kafka.server.share.fetch.RecordState;

import java.util.ArrayList;
import java.util.List;

/**
 * The acknowledgements one producer's open transaction staged on one
 * share-partition (docs/KIP1289-ON-KAFKA.md, sections 5 and 7): the started
 * state transitions that make their records pending, under (producer id P,
 * producer epoch E), and the stage offset S, the partition's high watermark
 * before the first of them was staged. The transaction's marker in this
 * partition, the first control batch of P with epoch >= E at an offset >= S,
 * settles it.
 *
 * <p>The lists are guarded by the registry ({@link Kip1289PendingAcks}) until the
 * entry is claimed for settlement; then they belong to the settler.
 */
final class Kip1289PendingEntry {

    /** An acknowledgement whose record the lock policy `expire` released while it was pending. */
    record LapsedAck(long firstOffset, long lastOffset, RecordState tentativeState, short deliveryCount) {
    }

    final Kip1289SharePartitionHandle sharePartition;
    final String transactionalId;
    final long producerId;
    final short producerEpoch;
    final long stageOffset;
    /**
     * Restored by a new leader (Kip1289Restore): its records were ACQUIRED by
     * nobody under the pending transition, so an ABORT makes them AVAILABLE
     * rather than acquired again.
     */
    final boolean restored;
    /** Started transitions: the pending records. */
    final List<SharePartition.PersisterBatch> pending = new ArrayList<>();
    /** Acknowledgements lapsed under `expire`; a COMMIT still applies them where the record allows. */
    final List<LapsedAck> lapsed = new ArrayList<>();

    Kip1289PendingEntry(Kip1289SharePartitionHandle sharePartition, String transactionalId,
                        long producerId, short producerEpoch, long stageOffset, boolean restored) {
        this.sharePartition = sharePartition;
        this.transactionalId = transactionalId;
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.stageOffset = stageOffset;
        this.restored = restored;
    }

    /** The entry as the pending set persists it. */
    PendingSet.Entry persisted() {
        List<PendingSet.Range> ranges = new ArrayList<>();
        for (SharePartition.PersisterBatch p : pending) {
            ranges.add(new PendingSet.Range(p.stateBatch().firstOffset(), p.stateBatch().lastOffset(),
                p.stateBatch().deliveryState(), p.stateBatch().deliveryCount(), false));
        }
        for (LapsedAck a : lapsed) {
            ranges.add(new PendingSet.Range(a.firstOffset(), a.lastOffset(), a.tentativeState().id(), a.deliveryCount(), true));
        }
        return new PendingSet.Entry(transactionalId, producerId, producerEpoch, stageOffset, PendingSet.Range.coalesce(ranges));
    }

    /**
     * Whether every offset of batches is pending in this entry: a retry of a
     * TxnShareAcknowledge already staged, which is accepted again unchanged.
     */
    boolean pendingCovers(List<ShareAcknowledgementBatch> batches) {
        for (ShareAcknowledgementBatch b : batches) {
            for (long o = b.firstOffset(); o <= b.lastOffset(); o++) {
                if (!pendingHas(o)) {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean pendingHas(long offset) {
        for (SharePartition.PersisterBatch p : pending) {
            if (p.stateBatch().firstOffset() <= offset && offset <= p.stateBatch().lastOffset()) {
                return true;
            }
        }
        return false;
    }

    /** The number of records pending. */
    long pendingRecords() {
        long n = 0;
        for (SharePartition.PersisterBatch p : pending) {
            n += p.stateBatch().lastOffset() - p.stateBatch().firstOffset() + 1;
        }
        return n;
    }

    @Override
    public String toString() {
        return "pending acks of " + transactionalId + " (producer " + producerId + ", epoch " + producerEpoch
            + ", stage offset " + stageOffset + ") on " + sharePartition + ": " + pendingRecords()
            + " records pending, " + lapsed.size() + " lapsed";
    }
}
