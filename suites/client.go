package suites

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/sharechaos/sharechaos/internal/role"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The worker clients (--client): the CTP loop on franz-go (the worker role
// of this binary), or on Apache Kafka's own Java clients (KafkaShareConsumer
// and the transactional KafkaProducer; clients/java/worker, issue 24). Both
// read the same ctp.WorkerConfig file and write the same history events, so
// the checker judges either unchanged.
const (
	ClientGo   = "go"
	ClientJava = "java"
)

// Clients lists the --client choices.
var Clients = []string{ClientGo, ClientJava}

// JavaWorkerEnv names the Java worker's jar (make java-worker builds it).
const (
	JavaWorkerEnv  = "SHARECHAOS_JAVA_WORKER"
	javaWorkerJar  = "sharechaos-java-worker.jar"
	javaWorkerMain = "sharechaos.worker.Main"
)

// clientFlagHelp is --client's help line.
const clientFlagHelp = "go | java: the CTP worker's client, franz-go or Apache Kafka's Java clients (the jar of `make java-worker`, found in $" +
	JavaWorkerEnv + ", next to the binary or in build/; the Java worker runs the transactional mode through the ledger only)"

// clientName is client with its default.
func clientName(client string) string {
	if client == "" {
		return ClientGo
	}
	return client
}

// checkClient is --client's usage check, before anything runs: a Java worker
// needs its jar and a JRE, and runs no native realization.
func (o Options) checkClient() error {
	c := clientName(o.Client)
	if !slices.Contains(Clients, c) {
		return harness.Usagef("--client %q: want one of %v", o.Client, Clients)
	}
	if c != ClientJava {
		return nil
	}
	if slices.Contains(o.Modes, ctp.Transactional) {
		native := o.TxnAcks != "ledger"
		if len(o.Realizations) > 0 {
			native = slices.Contains(o.Realizations, ctp.RealizationNative)
		}
		if native {
			return harness.Usagef("--client java runs the transactional mode through the ledger only (Kafka's Java clients have no KIP-1289 API yet): add --txn-acks ledger")
		}
	}
	if _, err := javaCommand(); err != nil {
		return err
	}
	return nil
}

// javaCommand finds java and the worker's jar: the command line before the
// config file's path.
func javaCommand() ([]string, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, harness.Usagef("--client java needs a Java runtime (17 or newer) on PATH: %v", err)
	}
	jar, searched := findJavaWorker()
	if jar == "" {
		return nil, harness.Usagef("--client java needs the Java worker %s, not found at %s: build it with `make java-worker` (or point %s at it)",
			javaWorkerJar, strings.Join(searched, ", "), JavaWorkerEnv)
	}
	// -XX:TieredStopAtLevel=1: a worker lives seconds to minutes on a shared
	// 2-core machine, where C2's compilations cost more than they return
	// (docs/ENVIRONMENT.md measured the same for the brokers).
	return []string{java, "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", jar, javaWorkerMain}, nil
}

// findJavaWorker looks in $SHARECHAOS_JAVA_WORKER, next to the running binary,
// then in build/ of the working directory and of each parent (a test binary
// runs in its package's directory), as the reference broker is found.
func findJavaWorker() (string, []string) {
	var candidates []string
	if p := os.Getenv(JavaWorkerEnv); p != "" {
		candidates = append(candidates, p)
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), javaWorkerJar))
		}
		if wd, err := os.Getwd(); err == nil {
			for dir := wd; ; dir = filepath.Dir(dir) {
				candidates = append(candidates, filepath.Join(dir, "build", javaWorkerJar))
				if filepath.Dir(dir) == dir {
					break
				}
			}
		}
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, candidates
			}
			return p, candidates
		}
	}
	return "", candidates
}

// workerCommand is the process of one worker of client reading the config
// file at path: this binary in the worker role, or the Java worker, in its
// own process group and killed with the orchestrator (role.Command's
// attributes), so the orchestrator's signals (SIGTERM, SIGKILL, SIGCONT)
// reach either the same way.
func workerCommand(client, path string) (*exec.Cmd, error) {
	if clientName(client) != ClientJava {
		return role.Command(roleWorker, path)
	}
	argv, err := javaCommand()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// clientNote is the cell note naming the worker's client.
func clientNote(client string) string {
	if clientName(client) == ClientJava {
		return "client: java (Apache Kafka's KafkaShareConsumer and KafkaProducer, clients/java/worker)"
	}
	return "client: go (franz-go)"
}
