package io.github.sharechaos.kip1289.persist;

import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotKey;
import org.apache.kafka.coordinator.share.generated.ShareUpdateKey;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.share.SharePartitionKey;
import org.apache.kafka.timeline.SnapshotRegistry;
import org.apache.kafka.timeline.TimelineHashMap;

/**
 * The share coordinator side of the pending set (docs/KIP1289-ON-KAFKA.md,
 * section 8): one per ShareCoordinatorShard, kept in a TimelineHashMap on the
 * shard's SnapshotRegistry like the shard's own state, so that a failed
 * append reverts it with them.
 *
 * <p>Rules: a ShareSnapshot or ShareUpdate record with the tag replaces the
 * kept set if its seq is higher, without the tag leaves it; a tombstone drops
 * it. Every record the shard generates for a share-partition carries the kept
 * set, or the written one when that is newer (carry), so that a snapshot
 * (a count of updates, a new leader epoch, a cold partition) and compaction
 * never lose it; ReadShareGroupState returns it (attach).
 */
public final class PendingSetStore {

    private final TimelineHashMap<String, byte[]> sets;

    public PendingSetStore(SnapshotRegistry snapshotRegistry) {
        this.sets = new TimelineHashMap<>(snapshotRegistry, 0);
    }

    private static String key(SharePartitionKey k) {
        return PendingSetBridge.key(k.groupId(), k.topicId(), k.partition());
    }

    /** Hook (ShareCoordinatorShard.replay): a record of __share_group_state, written or loaded. */
    public void replay(ApiMessage key, ApiMessageAndVersion value) {
        String k;
        if (key instanceof ShareSnapshotKey s) {
            k = PendingSetBridge.key(s.groupId(), s.topicId(), s.partition());
        } else if (key instanceof ShareUpdateKey u) {
            k = PendingSetBridge.key(u.groupId(), u.topicId(), u.partition());
        } else {
            return;
        }
        if (value == null || value.message() == null) {
            sets.remove(k); // tombstone
            return;
        }
        byte[] set = PendingSetTag.get(value.message().unknownTaggedFields());
        if (set != null && PendingSet.seqOf(set) > PendingSet.seqOf(sets.get(k))) {
            sets.put(k, set);
        }
    }

    /**
     * Hook (ShareCoordinatorShard, every generated share-state record): record
     * carries the newer of the set written (from the request's partition data,
     * may be null) and the set kept. Returns record.
     */
    public CoordinatorRecord carry(SharePartitionKey key, WriteShareGroupStateRequestData.PartitionData written,
                                   CoordinatorRecord record) {
        byte[] set = sets.get(key(key));
        byte[] fresh = written == null ? null : PendingSetTag.get(written.unknownTaggedFields());
        if (fresh != null && PendingSet.seqOf(fresh) > PendingSet.seqOf(set)) {
            set = fresh;
        }
        if (set != null && record.value() != null && record.value().message() != null) {
            PendingSetTag.put(record.value().message().unknownTaggedFields(), set);
        }
        return record;
    }

    /** Hook (ShareCoordinatorShard.readStateAndMaybeUpdateLeaderEpoch): the response carries the kept set. */
    public void attach(SharePartitionKey key, ReadShareGroupStateResponseData response) {
        byte[] set = sets.get(key(key));
        if (set == null) {
            return;
        }
        response.results().forEach(r -> r.partitions().forEach(p -> PendingSetTag.put(p.unknownTaggedFields(), set)));
    }
}
