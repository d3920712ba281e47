package sharechaos.worker;

/**
 * What one step of the loop did: Go's ctp.StepResult (workloads/ctp/worker.go),
 * which a stepped worker (the bench's, {@link Stepped}) answers each step
 * with, as one JSON line.
 */
final class StepResult {
    /** The size of the batch processed; 0 when the poll was empty. */
    int records;
    /** The commit's outcome (ok, fail, info); "" when no transaction ran or it was aborted before the commit. */
    String outcome = "";
    /** The commit call, begin to commit returned, the ACCEPT round trip after the commit, the acks' send into the transaction. */
    long commitNs;
    long totalNs;
    long ackNs;
    long txnAcksNs;
    /** The worker's transaction sequence number of the step's transaction (the output's txn header); 0 for none. */
    long txn;

    /** The JSON line (field names as the Go side's javaStep reads them). */
    String json() {
        StringBuilder b = new StringBuilder();
        b.append("{\"records\":").append(records).append(",\"outcome\":");
        HistoryWriter.string(b, outcome);
        b.append(",\"commit_ns\":").append(commitNs).append(",\"total_ns\":").append(totalNs)
                .append(",\"ack_ns\":").append(ackNs).append(",\"txn_acks_ns\":").append(txnAcksNs).append(",\"txn\":").append(txn).append('}');
        return b.toString();
    }

    /** The line of a step that failed: the worker is done, the driver opens another. */
    static String error(String why) {
        StringBuilder b = new StringBuilder("{\"error\":");
        HistoryWriter.string(b, why);
        return b.append('}').toString();
    }
}
