package io.github.sharechaos.kip1289.persist;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.server.share.SharePartitionKey;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leader side of the pending set's way through the share coordinator: the
 * hooks in Kafka's persister (PersisterStateManager) put this leader's current
 * set of a share-partition into every WriteShareGroupState of it, and take the
 * set a ReadShareGroupState returns, for the share-partition that is loading
 * (Kip1289Restore). Static because the persister is built deep in the broker,
 * out of reach of KafkaApis' hook; one broker runs per JVM.
 */
public final class PendingSetBridge {

    /** This leader's current set per share-partition, encoded. */
    private static final Map<String, byte[]> CURRENT = new ConcurrentHashMap<>();
    /** Sets read from the share coordinator, until the loading share-partition takes them. */
    private static final Map<String, byte[]> RECEIVED = new ConcurrentHashMap<>();

    private PendingSetBridge() {
    }

    static String key(String groupId, Uuid topicId, int partition) {
        return groupId + ":" + topicId + ":" + partition;
    }

    /** Our registry: the set of a share-partition is now set (every later write carries it). */
    public static void publish(String groupId, Uuid topicId, int partition, PendingSet set) {
        CURRENT.put(key(groupId, topicId, partition), set.encode());
    }

    /** Our registry: this broker no longer leads the share-partition. */
    public static void forget(String groupId, Uuid topicId, int partition) {
        CURRENT.remove(key(groupId, topicId, partition));
    }

    /**
     * Hook (PersisterStateManager.coalesceWrites): the write of key carries the
     * current set, if this leader has one for it. Returns data.
     */
    public static WriteShareGroupStateRequestData.PartitionData write(SharePartitionKey key,
                                                                      WriteShareGroupStateRequestData.PartitionData data) {
        byte[] set = CURRENT.get(key(key.groupId(), key.topicId(), key.partition()));
        if (set != null) {
            PendingSetTag.put(data.unknownTaggedFields(), set);
        }
        return data;
    }

    /** Hook (PersisterStateManager.ReadStateHandler): what the share coordinator returned for key. */
    public static void read(SharePartitionKey key, ReadShareGroupStateResponseData.PartitionResult result) {
        String k = key(key.groupId(), key.topicId(), key.partition());
        byte[] set = PendingSetTag.get(result.unknownTaggedFields());
        if (set == null) {
            RECEIVED.remove(k);
        } else {
            RECEIVED.put(k, set);
        }
    }

    /** The set last read for a share-partition, once (the loading share-partition restores it). */
    public static PendingSet takeReceived(String groupId, Uuid topicId, int partition) {
        byte[] set = RECEIVED.remove(key(groupId, topicId, partition));
        return set == null ? null : PendingSet.decode(set);
    }
}
