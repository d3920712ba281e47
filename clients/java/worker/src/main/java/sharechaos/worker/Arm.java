package sharechaos.worker;

import java.time.Duration;
import java.util.Set;

/**
 * Where an armed worker fires its one-shot fault and what it does there: Go's
 * ctp.Arm, with the same point and action names (workloads/ctp/arm.go).
 */
final class Arm {
    // Points, in loop order.
    static final String BEFORE_BEGIN = "before-begin";
    static final String BEFORE_SEND = "before-send";
    static final String AFTER_SEND = "after-send";
    static final String AFTER_ACKS = "after-acks";
    static final String BEFORE_COMMIT = "before-commit";
    static final String AFTER_COMMIT = "after-commit";

    // Actions.
    static final String KILL = "kill";
    static final String TERM = "term";
    static final String ABORT = "abort";
    static final String STOP = "stop";
    static final String FAIL_PRODUCE = "fail-produce";
    static final String STALL = "stall";
    static final String STALL_OVERLAP = "stall-overlap";
    static final String HOLD_REDELIVERED = "hold-redelivered";

    static final Set<String> ACTIONS = Set.of(KILL, TERM, ABORT, STOP, FAIL_PRODUCE, STALL, STALL_OVERLAP, HOLD_REDELIVERED);

    static final Arm NONE = new Arm("", "", "", 0, Duration.ZERO);

    final String fault;
    final String point;
    final String action;
    final int batch;
    final Duration stall;

    Arm(String fault, String point, String action, int batch, Duration stall) {
        this.fault = fault;
        this.point = point;
        this.action = action;
        this.batch = batch;
        this.stall = stall;
    }

    boolean armed() {
        return !point.isEmpty() && batch > 0;
    }

    /** Whether the arm fires at point p on the worker's batch-th non-empty batch. */
    boolean at(String p, int batchNo) {
        return armed() && point.equals(p) && batch == batchNo;
    }

    /** A follower's arm (ctp.Arm.HoldsRedelivered): it fires on a redelivered batch, not at batch. */
    boolean holdsRedelivered() {
        return HOLD_REDELIVERED.equals(action) && !stall.isZero();
    }
}
