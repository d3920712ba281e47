package sharechaos.worker;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One transaction's ledger record: Go's ledger.Entry
 * (workloads/kip1289/ledger/entry.go), the same bytes. Key "worker/seq"; value
 * the batch's input records as "topic/partition/offset" lines joined by '\n'.
 */
final class LedgerEntry {
    final String worker;
    final long seq;
    final List<RecordId> records;

    LedgerEntry(String worker, long seq, List<RecordId> records) {
        this.worker = worker;
        this.seq = seq;
        this.records = records;
    }

    /** "worker/seq". */
    String key() {
        return worker + "/" + seq;
    }

    byte[] keyBytes() {
        return key().getBytes(StandardCharsets.UTF_8);
    }

    byte[] valueBytes() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < records.size(); i++) {
            if (i > 0) {
                b.append('\n');
            }
            b.append(records.get(i));
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads a ledger record back; a record that is no entry is an error naming its offset. */
    static LedgerEntry decode(byte[] keyBytes, byte[] valueBytes, long offset) {
        String key = keyBytes == null ? "" : new String(keyBytes, StandardCharsets.UTF_8);
        int i = key.lastIndexOf('/');
        if (i <= 0) {
            throw new IllegalArgumentException("decode ledger entry at " + offset + ": key \"" + key + "\" is not worker/seq");
        }
        long seq;
        try {
            seq = Long.parseLong(key.substring(i + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("decode ledger entry at " + offset + ": key \"" + key + "\": " + e.getMessage());
        }
        List<RecordId> ids = new ArrayList<>();
        if (valueBytes != null && valueBytes.length > 0) {
            for (String line : new String(valueBytes, StandardCharsets.UTF_8).split("\n", -1)) {
                ids.add(RecordId.parse(line, key, offset));
            }
        }
        return new LedgerEntry(key.substring(0, i), seq, ids);
    }
}
