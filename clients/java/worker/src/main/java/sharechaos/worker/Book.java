package sharechaos.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What a worker knows of the ledger: for each record, the offset of the first
 * committed entry that holds it (the winner). Go's ledger.Book
 * (workloads/kip1289/ledger/book.go), rule for rule: it holds only committed
 * entries, applied in ledger order, and its answers are the realization's
 * decision rules.
 */
final class Book {
    private final Map<RecordId, Long> winner = new HashMap<>();
    /** One past the last ledger offset applied: entries must come in increasing order. */
    private long applied;

    /**
     * Records a committed entry at offset. The first committed entry for a
     * record wins; later ones for the same record change nothing.
     */
    void apply(long offset, LedgerEntry e) {
        if (offset < applied) {
            throw new IllegalStateException("ledger entry at offset " + offset + " applied after offset " + (applied - 1));
        }
        applied = offset + 1;
        for (RecordId id : e.records) {
            winner.putIfAbsent(id, offset);
        }
    }

    /** The ids some committed entry holds: the pre-check accepts them without processing. */
    List<RecordId> committed(List<RecordId> ids) {
        List<RecordId> out = new ArrayList<>();
        for (RecordId id : ids) {
            if (winner.containsKey(id)) {
                out.add(id);
            }
        }
        return out;
    }

    /**
     * The ids a committed entry below own holds: another transaction committed
     * their acks first, so the transaction whose entry is at own must abort. An
     * entry above own cannot have won (its writer's validation waits for own's
     * outcome), so it is no conflict.
     */
    List<RecordId> conflicts(List<RecordId> ids, long own) {
        List<RecordId> out = new ArrayList<>();
        for (RecordId id : ids) {
            Long w = winner.get(id);
            if (w != null && w < own) {
                out.add(id);
            }
        }
        return out;
    }

    /** Forgets records below their share-partition's start offset ("topic" -> partition -> start). */
    int prune(Map<String, Map<Integer, Long>> starts) {
        int n = 0;
        for (Iterator<RecordId> it = winner.keySet().iterator(); it.hasNext(); ) {
            RecordId id = it.next();
            Map<Integer, Long> ps = starts.get(id.topic);
            Long start = ps == null ? null : ps.get(id.partition);
            if (start != null && id.offset < start) {
                it.remove();
                n++;
            }
        }
        return n;
    }

    int size() {
        return winner.size();
    }
}
