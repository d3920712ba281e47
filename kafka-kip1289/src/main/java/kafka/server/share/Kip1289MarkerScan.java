package kafka.server.share;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.FetchDataInfo;
import org.apache.kafka.storage.internals.log.UnifiedLog;

import java.io.IOException;
import java.util.Iterator;
import java.util.Optional;

import kafka.server.ReplicaManager;

/**
 * Finds, in an input partition's local log, the marker that ends a pending
 * entry (docs/KIP1289-ON-KAFKA.md, sections 7 and 8): the first control batch
 * of producer P with epoch >= E at an offset >= S. A new leader runs it for
 * every pending entry it restores: the transaction may have ended while no
 * leader held the entry loaded (the marker was appended, and answered, before
 * the share-partition was initialized here).
 */
final class Kip1289MarkerScan {

    /** How much of the log one read takes. */
    private static final int READ_BYTES = 1 << 20;

    /** What the scan found. */
    record Found(TransactionResult result, long offset, short producerEpoch) {
    }

    private Kip1289MarkerScan() {
    }

    /**
     * The marker, empty if none is in the log up to its end (the transaction
     * is still open); empty too when the log no longer starts at or below S
     * (retention removed what the scan needs: the entry stays pending until a
     * marker comes, see KIP1289-ON-KAFKA.md's risks).
     */
    static Optional<Found> find(ReplicaManager replicaManager, TopicPartition tp, long producerId, short producerEpoch,
                                long stageOffset) throws IOException {
        UnifiedLog log = replicaManager.localLogOrException(tp);
        long offset = Math.max(stageOffset, log.logStartOffset());
        // The log end, not the high watermark: a marker the leader appended is
        // the transaction coordinator's decided outcome, replicated or not.
        while (offset < log.logEndOffset()) {
            FetchDataInfo info = log.read(offset, READ_BYTES, FetchIsolation.LOG_END, true);
            long next = offset;
            for (RecordBatch batch : info.records.batches()) {
                next = batch.nextOffset();
                if (batch.lastOffset() < stageOffset || !batch.isControlBatch() || batch.producerId() != producerId
                    || batch.producerEpoch() < producerEpoch) {
                    continue;
                }
                Iterator<Record> it = batch.iterator();
                if (!it.hasNext()) {
                    continue;
                }
                ControlRecordType type = ControlRecordType.parse(it.next().key());
                if (type == ControlRecordType.COMMIT) {
                    return Optional.of(new Found(TransactionResult.COMMIT, batch.baseOffset(), batch.producerEpoch()));
                }
                if (type == ControlRecordType.ABORT) {
                    return Optional.of(new Found(TransactionResult.ABORT, batch.baseOffset(), batch.producerEpoch()));
                }
            }
            if (next <= offset) {
                break; // nothing read: at the end
            }
            offset = next;
        }
        return Optional.empty();
    }
}
