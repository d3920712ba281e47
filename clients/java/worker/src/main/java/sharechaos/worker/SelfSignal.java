package sharechaos.worker;

import java.io.IOException;

/**
 * Signals to the worker's own process, as the Go worker sends them to itself
 * (ctp.signalSelf). Java has no kill(2): ProcessHandle.current().destroy()
 * is refused for the current process, and Runtime.halt is an exit, not a
 * signal (it runs the JVM's exit path and ends with a status the orchestrator
 * would read as an exit, not as death by SIGKILL). So the worker runs
 * {@code kill -KILL <pid>} (or -STOP) and blocks until it acts: the kernel
 * kills or freezes every thread of the process at once, no shutdown hook, no
 * finally block, no client close runs, exactly as a SIGKILL from outside.
 *
 * <p>The window: between the fault-fired event and the signal landing (the
 * fork and exec of kill(1), a few milliseconds) the calling thread waits in
 * Process.waitFor and takes no loop step; the clients' own background threads
 * (heartbeats, a fetch or ack already in flight) run on for those
 * milliseconds, as kgo's goroutines do until the Go worker's signal lands.
 * Nothing of the loop runs after the point.
 */
final class SelfSignal {
    private SelfSignal() {
    }

    static final long PID = ProcessHandle.current().pid();

    /** SIGKILLs this process; never returns. */
    static void kill() {
        send("KILL");
        // The signal may land a moment after kill(1) exited: block this
        // thread so nothing after the point runs.
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException ignored) {
                // keep blocking
            }
        }
    }

    /**
     * SIGSTOPs this process; returns once it is continued (SIGCONT from the
     * orchestrator). kill(2) sets the stop pending on every thread before
     * kill(1) can exit, and the thread waiting for kill(1) cannot return to
     * user space without stopping first, so waitFor returns only after the
     * resume.
     */
    static void stop() {
        send("STOP");
    }

    /**
     * SIGTERMs this process: the JVM starts its shutdown, whose hook (Main)
     * asks the loop to stop, as a SIGTERM from the orchestrator does. The
     * hook runs on its own thread, so the caller waits for the stop request
     * (Worker's stop latch) before its next step.
     */
    static void term() {
        send("TERM");
    }

    private static void send(String sig) {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(PID)).inheritIO().start();
            int rc = p.waitFor();
            if (rc != 0) {
                throw new IllegalStateException("kill -" + sig + " " + PID + " exited " + rc);
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + sig + " " + PID + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("kill -" + sig + " " + PID + ": interrupted", e);
        }
    }
}
