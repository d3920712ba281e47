package workerset

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/sharechaos/sharechaos/internal/role"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/worker"
)

// Client is one implementation of the CTP worker: one entry of Clients,
// which the --client flag, its check before a run, the worker set's launch
// and the cells' notes read. Every client reads the same ctp.WorkerConfig
// file and writes the same history events, so the checker judges any of
// them unchanged. Adding a client is adding its program and an entry here.
type Client struct {
	Name string
	// About is the cell note naming it.
	About string
	// Realizations are the transactional realizations it runs (nil: every
	// one).
	Realizations []string
	// Lacks are the loop options it does not have (OptionRenew,
	// OptionPoison), in some modes or all: a row's cell that needs one is
	// N/A on it, never run without.
	Lacks []Lack
	// Find says what it needs on this machine that is missing (nil: ready),
	// before anything runs.
	Find func() error
	// Command is the process of one worker reading the config file at path.
	Command func(path string) (*exec.Cmd, error)
}

// The loop options a row may need of a client (ctp.Renew, ctp.Poison).
const (
	OptionRenew  = "renew"
	OptionPoison = "poison"
)

// Lack is a loop option a client does not have in Modes (nil: in any
// mode); Why ends the cell's N/A note.
type Lack struct {
	Option string
	Modes  []ctp.AckMode
	Why    string
}

// In reports whether the lack applies to a cell of mode.
func (l Lack) In(mode ctp.AckMode) bool { return l.Modes == nil || slices.Contains(l.Modes, mode) }

// javaImplicit: Kafka's KafkaShareConsumer in implicit acknowledgement
// mode throws at every acknowledge call, so the Java worker can neither
// RENEW a batch nor RELEASE a poison record there (the Go worker's kgo
// client marks acks in any mode).
const javaImplicit = "Kafka's KafkaShareConsumer refuses every acknowledgement in the implicit mode, RENEW and RELEASE included"

// The clients' names.
const (
	ClientGo   = result.DefaultClient
	ClientJava = "java"
)

// Clients lists every client, the default first.
var Clients = []Client{
	{Name: ClientGo, About: "client: go (franz-go)",
		Find:    func() error { return nil },
		Command: func(path string) (*exec.Cmd, error) { return role.Command(worker.Role, path) }},
	// Apache Kafka's own Java clients (KafkaShareConsumer and the
	// transactional KafkaProducer; clients/java/worker, issue 24).
	{Name: ClientJava, About: "client: java (Apache Kafka's KafkaShareConsumer and KafkaProducer, clients/java/worker)",
		Realizations: []string{ctp.RealizationLedger},
		Lacks: []Lack{{Option: OptionRenew, Modes: []ctp.AckMode{ctp.Implicit}, Why: javaImplicit},
			{Option: OptionPoison, Modes: []ctp.AckMode{ctp.Implicit}, Why: javaImplicit}},
		Find:    func() error { _, err := javaCommand(); return err },
		Command: javaWorkerCommand},
}

// LookupClient finds a client by name; "" is the default.
func LookupClient(name string) (Client, bool) {
	if name == "" {
		name = ClientGo
	}
	i := slices.IndexFunc(Clients, func(c Client) bool { return c.Name == name })
	if i < 0 {
		return Client{}, false
	}
	return Clients[i], true
}

// ClientNames are the clients' names, the default first.
func ClientNames() []string {
	names := make([]string, len(Clients))
	for i, c := range Clients {
		names[i] = c.Name
	}
	return names
}

// ClientHelp is --client's help line.
func ClientHelp() string {
	return strings.Join(ClientNames(), " | ") + ", repeated or comma-separated (go,java runs every cell once per client, side by side in one report): the CTP worker's client, franz-go or Apache Kafka's Java clients (the jar of `make java-worker`, found in $" +
		JavaWorkerEnv + ", next to the binary or in build/; the Java worker runs the transactional mode through the ledger only)"
}

// Runs reports whether c runs the named transactional realization.
func (c Client) Runs(realization string) bool {
	return c.Realizations == nil || slices.Contains(c.Realizations, realization)
}

// command is the process of one worker of client reading path.
func command(client, path string) (*exec.Cmd, error) {
	c, ok := LookupClient(client)
	if !ok {
		return nil, fmt.Errorf("client %q: want one of %v", client, ClientNames())
	}
	return c.Command(path)
}

// JavaWorkerEnv names the Java worker's jar (make java-worker builds it).
const (
	JavaWorkerEnv  = "SHARECHAOS_JAVA_WORKER"
	javaWorkerJar  = "sharechaos-java-worker.jar"
	javaWorkerMain = "sharechaos.worker.Main"
	// javaMutantProperty is the Java worker's Mutant.PROPERTY.
	javaMutantProperty = "sharechaos.mutant"
)

// javaCommand finds java and the worker's jar: the command line before the
// config file's path.
func javaCommand() ([]string, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("--client java needs a Java runtime (17 or newer) on PATH: %w", err)
	}
	jar, searched := findJavaWorker()
	if jar == "" {
		return nil, fmt.Errorf("--client java needs the Java worker %s, not found at %s: build it with `make java-worker` (or point %s at it)",
			javaWorkerJar, strings.Join(searched, ", "), JavaWorkerEnv)
	}
	// -XX:TieredStopAtLevel=1: a worker lives seconds to minutes on a shared
	// 2-core machine, where C2's compilations cost more than they return
	// (docs/ENVIRONMENT.md measured the same for the brokers).
	argv := []string{java, "-XX:TieredStopAtLevel=1", "-Xmx256m"}
	if m := ctp.ActiveMutant(); m != "" {
		// Only a mutants build has one: the Java worker reads its mutant
		// from this property alone, never from the environment.
		argv = append(argv, "-D"+javaMutantProperty+"="+string(m))
	}
	return append(argv, "-cp", jar, javaWorkerMain), nil
}

// javaWorkerCommand runs the Java worker in its own process group, killed
// with the orchestrator (role.Command's attributes), so the orchestrator's
// signals (SIGTERM, SIGKILL, SIGCONT) reach it as they reach a Go worker.
func javaWorkerCommand(path string) (*exec.Cmd, error) {
	argv, err := javaCommand()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
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
