package sharechaos.worker;

import java.util.Set;

/**
 * A test-only variant of the loop that breaks one promise on purpose: Go's
 * ctp.Mutant (workloads/ctp/mutant.go), for the mutants the Java worker
 * has. The suite must catch each with the scenario and mode paired with it
 * (suites/mutants_test.go, make mutants).
 *
 * <p>The active mutant comes from the system property {@value #PROPERTY},
 * which only the orchestrator of a mutants build sets (suites/workerset's
 * Java command line); the environment that carries it to the Go worker is
 * never read here, so an ordinary orchestrator cannot start a mutated Java
 * worker.
 */
final class Mutant {
    static final String PROPERTY = "sharechaos.mutant";

    /**
     * Explicit mode ACCEPTs the batch right after the poll, before its
     * transaction (and not again after the commit): a crash before the
     * commit loses the records, whose acks the broker already took.
     */
    static final String ACK_BEFORE_COMMIT = "ack-before-commit";

    static final Set<String> KNOWN = Set.of(ACK_BEFORE_COMMIT);

    private Mutant() {
    }

    /** The active mutant, "" for none. */
    static String active() {
        return System.getProperty(PROPERTY, "");
    }

    /** Whether m is the active mutant. */
    static boolean is(String m) {
        return m.equals(active());
    }

    /** Why the active mutant cannot run here ("" when it can): one the Java worker does not have. */
    static String problem() {
        String m = active();
        if (m.isEmpty() || KNOWN.contains(m)) {
            return "";
        }
        return "the Java worker has no mutant " + m + " (it has " + String.join(", ", KNOWN) + ")";
    }
}
