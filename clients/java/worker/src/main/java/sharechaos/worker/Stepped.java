package sharechaos.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The loop paced from outside (config "stepped": the bench's open-loop
 * driver, suites/benchrun): one step per "step" line on stdin, each answered
 * with its {@link StepResult} as one JSON line on stdout; "stop" or the end
 * of stdin stops the worker. The Go bench steps its in-process Go workers
 * the same way (ctp.Worker.Step), so both clients' latencies are measured by
 * one driver with one schedule.
 */
final class Stepped {
    static final String STEP = "step";
    static final String STOP = "stop";

    private Stepped() {
    }

    /** Runs steps until stop or end of input; a step that throws is answered with its error and ends the loop (thrown on). */
    static void run(Worker w, BufferedReader in, PrintStream out) throws Exception {
        for (String line; (line = in.readLine()) != null;) {
            line = line.trim();
            if (line.equals(STOP) || w.stopping()) {
                return;
            }
            if (!line.equals(STEP)) {
                out.println(StepResult.error("unknown command " + line + ": want step or stop"));
                out.flush();
                continue;
            }
            try {
                w.step();
                w.checkHistory();
            } catch (Exception e) {
                out.println(StepResult.error(e.getMessage() == null ? e.toString() : e.getMessage()));
                out.flush();
                throw e;
            }
            out.println(w.lastStep().json());
            out.flush();
        }
    }

    /** The process's stdin as lines. */
    static BufferedReader stdin() throws IOException {
        return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    }
}
