package kafka.server.share;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The two hooks KIP-1289 has in {@code SharePartition}: TxnShareAcknowledge is
 * the first half of {@code SharePartition.acknowledge} (the same validation and
 * the same started state transitions, under the same lock), and this class is
 * where the second half is replaced by staging (docs/KIP1289-ON-KAFKA.md,
 * section 5).
 *
 * <p>Staging runs through Kafka's own {@code SharePartitionManager.acknowledge}
 * on the request's thread, with a {@link Listener} current on that thread:
 * {@code SharePartition.acknowledge} then asks {@link #stage} whether to finish
 * the acknowledgement (write the new states, complete the transitions) as
 * usual, or to hand its started transitions over. A thread-local, not a new
 * parameter, because the call passes through {@code SharePartitionManager},
 * whose signature the patch would otherwise have to change too; the call is
 * synchronous up to the hook, so the thread-local is set exactly while it runs.
 */
public final class Kip1289Staging {

    /**
     * The member id TxnShareAcknowledge stages with when its MemberId tag is
     * absent (the KIP as written): any live acquisition is accepted, whoever
     * holds it. Compared by identity in {@link #isAnyHolder}: a member id read
     * from a request is never this object, so no client can claim it.
     */
    @SuppressWarnings("StringOperationCanBeSimplified")
    public static final String ANY_HOLDER = new String("<kip1289: any holder>");

    /** What the staging caller does with the started transitions of one share-partition. */
    public interface Listener {
        /**
         * Called by {@code SharePartition.acknowledge} once every batch was
         * validated and its transitions started (throwable == null), or one
         * failed (throwable != null; the transitions started before it are in
         * batches). Returns true if it took the transitions over and completes
         * future itself; false lets Kafka finish as for a ShareAcknowledge.
         */
        boolean onAcknowledged(Kip1289SharePartitionHandle sharePartition, CompletableFuture<Void> future,
                               Throwable throwable, List<SharePartition.PersisterBatch> batches);
    }

    private static final ThreadLocal<Listener> CURRENT = new ThreadLocal<>();

    private Kip1289Staging() {
    }

    /** Hook: whether an acknowledgement on this thread is being staged (cheap; checked first). */
    static boolean staging() {
        return CURRENT.get() != null;
    }

    /** Hook: hands an acknowledgement's started transitions to the current listener. */
    static boolean stage(Kip1289SharePartitionHandle sharePartition, CompletableFuture<Void> future,
                         Throwable throwable, List<SharePartition.PersisterBatch> batches) {
        Listener l = CURRENT.get();
        return l != null && l.onAcknowledged(sharePartition, future, throwable, batches);
    }

    /** Hook: the member check of {@code SharePartition.acknowledge} accepts any holder for ANY_HOLDER. */
    static boolean isAnyHolder(String memberId) {
        return memberId == ANY_HOLDER;
    }

    /** Runs body with listener current on this thread. */
    static <T> T during(Listener listener, Supplier<T> body) {
        Listener previous = CURRENT.get();
        CURRENT.set(listener);
        try {
            return body.get();
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }
}
