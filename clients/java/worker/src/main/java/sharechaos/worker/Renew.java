package sharechaos.worker;

import java.time.Duration;

/**
 * The loop's RENEW option (KIP-1222): Go's ctp.Renew (workloads/ctp/renew.go).
 * A worker that holds a batch past its processing (an armed stall) renews the
 * batch's acquisition locks every {@code every}; {@code lock} is the group's
 * acquisition lock, so a renewal the broker confirms holds the records until
 * at least its start plus lock, which its event says for the checker.
 */
final class Renew {
    /** A renew ok event's attribute (ctp.AttrLockUntil): the time (ns) until which the broker holds the records. */
    static final String ATTR_LOCK_UNTIL = "lock_until";

    final Duration every;
    final Duration lock;

    Renew(Duration every, Duration lock) {
        this.every = every;
        this.lock = lock;
    }
}
