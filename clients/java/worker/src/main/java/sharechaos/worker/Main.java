package sharechaos.worker;

import java.io.IOException;
import java.util.ArrayList;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The Java worker's main: {@code java -cp sharechaos-java-worker.jar
 * sharechaos.worker.Main CONFIG.json}, started by the orchestrator as it
 * starts the Go worker role (suites/workers.go), with the same config file.
 *
 * <p>Exit codes as the Go worker role's: 0 after a graceful stop, 1 when the
 * loop ended on an error (fenced, refused after a resume, a client that could
 * not be opened: the orchestrator replaces the worker), 64 for a config that
 * cannot run (bad file, the native realization).
 *
 * <p>SIGTERM is a graceful stop: the JVM runs the shutdown hook, which asks
 * the loop to stop and waits for it to abort its open transaction, close its
 * clients (releasing what the share consumer holds) and write its stop event.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        if (args.length != 1) {
            System.err.println("worker: want one argument, the config file");
            return 64;
        }
        WorkerConfig cfg;
        try {
            cfg = WorkerConfig.read(Path.of(args[0]));
        } catch (IOException | RuntimeException e) {
            System.err.println("worker: parse " + args[0] + ": " + e.getMessage());
            return 64;
        }
        List<String> problems = new ArrayList<>(cfg.problems());
        if (!Mutant.problem().isEmpty()) {
            problems.add(Mutant.problem());
        }
        if (!problems.isEmpty()) {
            System.err.println("worker: validate worker config: " + String.join("; ", problems));
            return 64;
        }
        HistoryWriter hist;
        try {
            hist = new HistoryWriter(cfg.historyPath, cfg.name());
        } catch (IOException e) {
            System.err.println("worker: open history: " + e.getMessage());
            return 1;
        }
        Worker w = new Worker(cfg, hist);
        // The hook waits for the loop's close, not for the thread: after it the
        // loop's thread calls System.exit, which blocks while hooks run.
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            w.requestStop();
            try {
                closed.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // the JVM is going down anyway
            }
        }, "sharechaos-sigterm"));
        Throwable why = null;
        int rc = 0;
        try {
            w.open();
            if (cfg.stepped) {
                Stepped.run(w, Stepped.stdin(), System.out);
            } else {
                w.run();
            }
        } catch (Throwable t) {
            if (!w.stopping()) {
                why = t;
                rc = 1;
                System.err.println("worker: " + t);
                t.printStackTrace();
            }
        }
        w.close(why);
        try {
            hist.close();
        } catch (IOException ignored) {
            // every event was written with its own write
        }
        closed.countDown();
        return rc;
    }
}
