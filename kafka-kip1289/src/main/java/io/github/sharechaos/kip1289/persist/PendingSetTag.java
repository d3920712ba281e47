package io.github.sharechaos.kip1289.persist;

import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.types.RawTaggedField;

import java.util.List;

/**
 * The tagged field (KIP-482) that carries an encoded {@link PendingSet} in the
 * share-state messages: WriteShareGroupStateRequest's and
 * ReadShareGroupStateResponse's partition data, and the ShareSnapshotValue and
 * ShareUpdateValue records of __share_group_state. All four are flexible from
 * version 0 and their generated classes keep the tags they do not know, so no
 * Kafka message class changes: the hooks put the tag in and take it out. A
 * broker without KIP-1289 reads and ignores it, so the state stays readable
 * by a stock broker (a downgrade loses the pending acks, not the partition).
 */
public final class PendingSetTag {

    /** Far from the tags Kafka's own messages use (0, 1, ...). */
    public static final int TAG = 12891;

    private PendingSetTag() {
    }

    /** The encoded set in tags, or null. */
    public static byte[] get(List<RawTaggedField> tags) {
        if (tags == null) {
            return null;
        }
        for (RawTaggedField f : tags) {
            if (f.tag() == TAG) {
                return f.data();
            }
        }
        return null;
    }

    /**
     * Hook (ShareCoordinatorService.writeState, which rebuilds each
     * partition's data for its shard): to carries from's set, if any.
     * Returns to.
     */
    public static <T extends Message> T copy(Message from, T to) {
        byte[] set = get(from.unknownTaggedFields());
        if (set != null) {
            put(to.unknownTaggedFields(), set);
        }
        return to;
    }

    /**
     * Puts data as the set into tags, a message's own mutable list
     * (unknownTaggedFields() of a generated message), replacing one there.
     */
    public static void put(List<RawTaggedField> tags, byte[] data) {
        tags.removeIf(f -> f.tag() == TAG);
        tags.add(new RawTaggedField(TAG, data));
        // Kafka's writer wants raw tags in ascending order.
        tags.sort((a, b) -> Integer.compare(a.tag(), b.tag()));
    }
}
