package kafka.server.share;

import org.apache.kafka.common.TopicIdPartition;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.BooleanSupplier;

/**
 * What KIP-1289's staging and settlement need of one {@link SharePartition}
 * beyond its package-private methods: its write lock (staged records are
 * settled under it, as Kafka's own acknowledgement completes under it), its
 * count of delivered records (a settlement that finalizes records counts them,
 * as {@code acknowledge} does), and its start-offset advance. The hook in
 * {@code SharePartition.acknowledge} hands them over, so that none of these
 * private members needs a visibility change in Kafka's file.
 *
 * @param partition                   the share-partition
 * @param groupId                     its share group
 * @param topicIdPartition            its topic-partition
 * @param lock                        SharePartition's own ReadWriteLock
 * @param deliveryCompleteCount       SharePartition's count of records in a terminal state
 * @param updateCachedStateAndOffsets SharePartition.maybeUpdateCachedStateAndOffsets: moves
 *                                    the start offset past finalized records; true if it moved
 */
public record Kip1289SharePartitionHandle(
    SharePartition partition,
    String groupId,
    TopicIdPartition topicIdPartition,
    ReadWriteLock lock,
    AtomicInteger deliveryCompleteCount,
    BooleanSupplier updateCachedStateAndOffsets
) {
    @Override
    public String toString() {
        return groupId + "-" + topicIdPartition;
    }
}
