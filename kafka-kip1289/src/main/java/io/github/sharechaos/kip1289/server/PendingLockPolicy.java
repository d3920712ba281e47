package io.github.sharechaos.kip1289.server;

import java.util.Locale;

/**
 * What a record's acquisition lock does while an acknowledgement of it is
 * pending in an open transaction (docs/FINDINGS.md, finding 3; the reference
 * broker's --kip1289-pending-lock).
 */
public enum PendingLockPolicy {
    /**
     * The KIP as written: the lock still expires, the record returns to
     * AVAILABLE and another member may acquire it; a later COMMIT still
     * applies the lapsed acknowledgement where the record allows it.
     */
    EXPIRE,
    /**
     * The pending acknowledgement holds the record until its transaction ends
     * (COMMIT materializes, ABORT returns it); the transaction timeout bounds
     * the hold. Kafka's own in-flight state transition gives this for free
     * (docs/KIP1289-ON-KAFKA.md).
     */
    HOLD;

    public static PendingLockPolicy parse(String s) {
        switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "expire":
                return EXPIRE;
            case "hold":
                return HOLD;
            default:
                throw new IllegalArgumentException("pending lock policy \"" + s + "\": want expire or hold");
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
