package sharechaos.worker;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One line of a history file: Go's history.Event (internal/history/event.go),
 * field for field. Empty fields are left out as Go's omitempty leaves them out.
 */
final class Event {
    // Types.
    static final String INVOKE = "invoke";
    static final String OK = "ok";
    static final String FAIL = "fail";
    static final String INFO = "info";

    // Operation names (the "f") the Java worker writes.
    static final String POLL = "poll";
    static final String BEGIN = "begin";
    static final String SEND = "send";
    static final String FLUSH = "flush";
    static final String LEDGER = "ledger";
    static final String VALIDATE = "validate";
    static final String TXN_ACKS = "txn-acks";
    static final String RENEW = "renew";
    static final String COMMIT = "commit";
    static final String ABORT = "abort";
    static final String ACK = "ack";
    static final String FAULT_FIRED = "fault-fired";
    static final String FAULT_ERROR = "fault-error";
    static final String RESUMED = "resumed";
    static final String INIT_PRODUCER = "init-producer";
    static final String START = "start";
    static final String STOP = "stop";
    /**
     * What the Java client reported on its own, outside the loop's steps: the
     * acknowledgement commit callback (implicit mode's acks that travel with
     * the next fetch, and the acks close sends). Not a loop step and no txn,
     * so the checker, which does not know it, passes over it; the text is for
     * the reader of the history (docs/FINDINGS.md).
     */
    static final String CLIENT = "client";

    // Ack types.
    static final String ACCEPT = "accept";
    static final String RELEASE = "release";
    static final String REJECT = "reject";

    long ts;
    String worker = "";
    String type = "";
    String f = "";
    long txn;
    List<Rec> records;
    List<String> ids;
    String ack = "";
    String error = "";
    long durNs;
    long txnNs;
    String fault = "";
    String point = "";
    String realization = "";
    Map<String, String> attrs;

    Event(String type, String f) {
        this.type = type;
        this.f = f;
    }

    Event txn(long seq) {
        this.txn = seq;
        return this;
    }

    Event records(List<Rec> rs) {
        this.records = rs;
        return this;
    }

    Event ids(List<String> v) {
        this.ids = v;
        return this;
    }

    Event ack(String a) {
        this.ack = a;
        return this;
    }

    Event error(String e) {
        this.error = e == null ? "" : e;
        return this;
    }

    Event dur(long ns) {
        this.durNs = ns;
        return this;
    }

    Event txnNs(long ns) {
        this.txnNs = ns;
        return this;
    }

    Event fault(String name, String at) {
        this.fault = name;
        this.point = at;
        return this;
    }

    Event realization(String r) {
        this.realization = r;
        return this;
    }

    Event attr(String k, String v) {
        if (attrs == null) {
            attrs = new TreeMap<>();
        }
        attrs.put(k, v);
        return this;
    }

    /** One input record as the worker saw it: Go's history.Rec. */
    static final class Rec {
        final String id;
        final int partition;
        final long offset;
        /** The broker's delivery count (1 = first); 0 when unknown (omitted). */
        final int delivery;

        Rec(String id, int partition, long offset, int delivery) {
            this.id = id;
            this.partition = partition;
            this.offset = offset;
            this.delivery = delivery;
        }
    }
}
