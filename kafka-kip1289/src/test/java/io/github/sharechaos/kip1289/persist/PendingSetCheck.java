package io.github.sharechaos.kip1289.persist;

import java.util.List;

/**
 * Checks of PendingSet that need no broker, run by build.sh after the
 * compile (a failed check fails the image build): the coalesced ranges and
 * the encoding that carries them.
 */
public final class PendingSetCheck {

    private static final byte ACKNOWLEDGED = 4;
    private static final byte AVAILABLE = 0;

    public static void main(String[] args) {
        // A leader's per-offset ranges of one batch: one range.
        check("per-offset ranges of one state", PendingSet.Range.coalesce(List.of(
                r(0, 0, ACKNOWLEDGED, 1, false), r(1, 1, ACKNOWLEDGED, 1, false), r(2, 2, ACKNOWLEDGED, 1, false), r(3, 3, ACKNOWLEDGED, 1, false))),
            List.of(r(0, 3, ACKNOWLEDGED, 1, false)));
        // What a COMMIT or an ABORT would treat apart stays apart: another
        // state, another delivery count, a gap, a lapsed acknowledgement.
        check("apart", PendingSet.Range.coalesce(List.of(
                r(0, 1, ACKNOWLEDGED, 1, false), r(2, 2, AVAILABLE, 1, false), r(3, 3, AVAILABLE, 2, false),
                r(5, 5, AVAILABLE, 2, false), r(6, 6, AVAILABLE, 2, true))),
            List.of(r(0, 1, ACKNOWLEDGED, 1, false), r(2, 2, AVAILABLE, 1, false), r(3, 3, AVAILABLE, 2, false),
                r(5, 5, AVAILABLE, 2, false), r(6, 6, AVAILABLE, 2, true)));
        // Out of order in, ordered out (lapsed last), runs joined.
        check("unordered", PendingSet.Range.coalesce(List.of(
                r(7, 7, ACKNOWLEDGED, 1, true), r(2, 2, ACKNOWLEDGED, 1, false), r(0, 1, ACKNOWLEDGED, 1, false), r(6, 6, ACKNOWLEDGED, 1, true))),
            List.of(r(0, 2, ACKNOWLEDGED, 1, false), r(6, 7, ACKNOWLEDGED, 1, true)));
        check("empty", PendingSet.Range.coalesce(List.of()), List.of());
        // The encoding carries the coalesced ranges back unchanged.
        PendingSet set = new PendingSet(PendingSet.seq(3, 9), List.of(new PendingSet.Entry("sc-w1", 2012, (short) 1, 250,
            PendingSet.Range.coalesce(List.of(r(0, 0, ACKNOWLEDGED, 1, false), r(1, 1, ACKNOWLEDGED, 1, false))))));
        PendingSet back = PendingSet.decode(set.encode());
        if (!set.equals(back)) {
            throw new AssertionError("encode/decode: " + set + " came back as " + back);
        }
        System.out.println("kafka-kip1289: PendingSetCheck passed");
    }

    private static PendingSet.Range r(long first, long last, byte state, int count, boolean lapsed) {
        return new PendingSet.Range(first, last, state, (short) count, lapsed);
    }

    private static void check(String what, List<PendingSet.Range> got, List<PendingSet.Range> want) {
        if (!got.equals(want)) {
            throw new AssertionError(what + ": got " + got + ", want " + want);
        }
    }
}
