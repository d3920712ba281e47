package io.github.sharechaos.kip1289.persist;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A share-partition's pending transactional acknowledgements as they are
 * persisted (docs/KIP1289-ON-KAFKA.md, section 8): the leader's whole set,
 * written with every state write of the share-partition as a tagged field, kept
 * by the share coordinator, and read back by the next leader.
 *
 * <p>seq orders the sets one share-partition's leaders wrote: a set replaces
 * the one kept only if its seq is higher, so writes that reach the share
 * coordinator out of order cannot bring back an older set. A leader's seq is
 * its leader epoch in the high half and a counter in the low half, so a new
 * leader's first set is newer than anything its predecessor wrote.
 *
 * @param seq     ordering of the sets, see above
 * @param entries one per transaction with acknowledgements pending here
 */
public record PendingSet(long seq, List<Entry> entries) {

    /** Format of the encoding; a reader refuses another. */
    private static final byte FORMAT = 1;

    /** One transaction's pending acknowledgements on the share-partition. */
    public record Entry(String transactionalId, long producerId, short producerEpoch, long stageOffset, List<Range> ranges) {
    }

    /**
     * An offset range acknowledged in the transaction: the state a COMMIT
     * gives it (tentativeState, a RecordState id: ACKNOWLEDGED for accept,
     * AVAILABLE for release, ARCHIVED for reject), its delivery count, and
     * whether the lock policy `expire` released it meanwhile (lapsed).
     */
    public record Range(long firstOffset, long lastOffset, byte tentativeState, short deliveryCount, boolean lapsed) {

        /**
         * The ranges with each run of adjacent ones that a COMMIT and an ABORT
         * treat alike (the same tentative state, delivery count and lapsed
         * flag) made one: a leader tracks acknowledged records offset by
         * offset, and written as they are the set grows with the batch
         * (0-0,1-1,2-2,...), in every state write of the share-partition.
         * Ordered by lapsed, then first offset; what a reader restores is
         * the same offsets in the same states.
         */
        public static List<Range> coalesce(List<Range> ranges) {
            List<Range> sorted = new ArrayList<>(ranges);
            sorted.sort(Comparator.comparing(Range::lapsed).thenComparingLong(Range::firstOffset));
            List<Range> out = new ArrayList<>();
            for (Range r : sorted) {
                int last = out.size() - 1;
                if (last >= 0 && out.get(last).continuedBy(r)) {
                    Range prev = out.get(last);
                    out.set(last, new Range(prev.firstOffset(), r.lastOffset(), r.tentativeState(), r.deliveryCount(), r.lapsed()));
                } else {
                    out.add(r);
                }
            }
            return out;
        }

        private boolean continuedBy(Range next) {
            return next.firstOffset() == lastOffset + 1 && next.tentativeState() == tentativeState
                && next.deliveryCount() == deliveryCount && next.lapsed() == lapsed;
        }
    }

    /** The seq a leader of leaderEpoch gives its n-th set. */
    public static long seq(int leaderEpoch, long n) {
        return ((long) leaderEpoch << 32) | (n & 0xffffffffL);
    }

    public byte[] encode() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(buf)) {
            out.writeByte(FORMAT);
            out.writeLong(seq);
            out.writeInt(entries.size());
            for (Entry e : entries) {
                out.writeUTF(e.transactionalId());
                out.writeLong(e.producerId());
                out.writeShort(e.producerEpoch());
                out.writeLong(e.stageOffset());
                out.writeInt(e.ranges().size());
                for (Range r : e.ranges()) {
                    out.writeLong(r.firstOffset());
                    out.writeLong(r.lastOffset());
                    out.writeByte(r.tentativeState());
                    out.writeShort(r.deliveryCount());
                    out.writeBoolean(r.lapsed());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.toByteArray();
    }

    /** Decodes what encode wrote; IllegalArgumentException for anything else. */
    public static PendingSet decode(byte[] data) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            byte format = in.readByte();
            if (format != FORMAT) {
                throw new IllegalArgumentException("KIP-1289 pending set: format " + format + ", want " + FORMAT);
            }
            long seq = in.readLong();
            int n = in.readInt();
            List<Entry> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String txnId = in.readUTF();
                long pid = in.readLong();
                short epoch = in.readShort();
                long stage = in.readLong();
                int m = in.readInt();
                List<Range> ranges = new ArrayList<>(m);
                for (int j = 0; j < m; j++) {
                    ranges.add(new Range(in.readLong(), in.readLong(), in.readByte(), in.readShort(), in.readBoolean()));
                }
                entries.add(new Entry(txnId, pid, epoch, stage, ranges));
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("KIP-1289 pending set: " + in.available() + " bytes after the set");
            }
            return new PendingSet(seq, entries);
        } catch (IOException e) {
            throw new IllegalArgumentException("KIP-1289 pending set: truncated", e);
        }
    }

    /** The seq of an encoded set, without decoding the rest. */
    public static long seqOf(byte[] data) {
        if (data == null || data.length < 9 || data[0] != FORMAT) {
            return Long.MIN_VALUE;
        }
        long seq = 0;
        for (int i = 1; i < 9; i++) {
            seq = (seq << 8) | (data[i] & 0xff);
        }
        return seq;
    }
}
