package sharechaos.worker;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortableException;

/**
 * Classifies what commitTransaction threw into the history's outcome, as Go's
 * ctp.commitOutcome does for kgo (workloads/ctp/commit_outcome.go); the one
 * place that decides which commit errors are definite.
 *
 * <ul>
 *   <li>no exception: committed (ok);
 *   <li>TransactionAbortableException, InvalidTxnStateException: the
 *       coordinator refused the commit, nothing committed (fail);
 *   <li>"Cannot execute transactional method because we are in an error
 *       state": the Java producer refuses to send EndTxn at all once a
 *       produce of the transaction failed (TransactionManager's abortable
 *       error state), kgo's OPERATION_NOT_ATTEMPTED: nothing committed (fail);
 *   <li>everything else, fencing and timeouts included, is unknown (info): a
 *       commitTransaction that timed out goes on in the background and may
 *       commit; a producer fenced at EndTxn by a replacement that started
 *       after our commit reached the coordinator is fenced and committed.
 * </ul>
 */
final class CommitOutcome {
    private CommitOutcome() {
    }

    static String of(Exception e) {
        if (e == null) {
            return Event.OK;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TransactionAbortableException || t instanceof InvalidTxnStateException) {
                return Event.FAIL;
            }
        }
        if (e instanceof KafkaException && !(e instanceof org.apache.kafka.common.errors.TimeoutException)
                && e.getMessage() != null && e.getMessage().startsWith("Cannot execute transactional method because we are in an error state")) {
            return Event.FAIL;
        }
        return Event.INFO;
    }

    /** Whether e says a newer producer with our transactional id took over (ctp.Fenced). */
    static boolean fenced(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
                return true;
            }
        }
        return false;
    }
}
