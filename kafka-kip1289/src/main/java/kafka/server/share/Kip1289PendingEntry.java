package kafka.server.share;

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
    record LapsedAck(long firstOffset, long lastOffset, RecordState tentativeState) {
    }

    final Kip1289SharePartitionHandle sharePartition;
    final String transactionalId;
    final long producerId;
    final short producerEpoch;
    final long stageOffset;
    /** Started transitions: the pending records. */
    final List<SharePartition.PersisterBatch> pending = new ArrayList<>();
    /** Acknowledgements lapsed under `expire`; a COMMIT still applies them where the record allows. */
    final List<LapsedAck> lapsed = new ArrayList<>();

    Kip1289PendingEntry(Kip1289SharePartitionHandle sharePartition, String transactionalId,
                        long producerId, short producerEpoch, long stageOffset) {
        this.sharePartition = sharePartition;
        this.transactionalId = transactionalId;
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.stageOffset = stageOffset;
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
