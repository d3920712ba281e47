package kafka.server.share;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch;

import java.util.List;
import java.util.Map;

/**
 * What one TxnShareAcknowledge asks this leader to stage, once its producer
 * was verified: for each share-partition, the batches (one acknowledge type
 * each) and the stage offset S, the partition's high watermark read when the
 * request arrived, before the verification (so that a marker of this
 * transaction appended meanwhile is at or above S; see
 * {@link Kip1289PendingAcks#stage}).
 *
 * @param memberId        the MemberId tag, or {@link Kip1289Staging#ANY_HOLDER} when absent
 */
public record Kip1289StageRequest(
    String groupId,
    String memberId,
    String transactionalId,
    long producerId,
    short producerEpoch,
    Map<TopicIdPartition, Partition> partitions
) {
    /** One share-partition's part of the request. */
    public record Partition(List<ShareAcknowledgementBatch> batches, long stageOffset) {
    }
}
