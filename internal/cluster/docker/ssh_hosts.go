package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/examples"
	"github.com/sharechaos/sharechaos/internal/netdelay"
)

// The ssh hosts layout (`cluster up --layout ssh-hosts`) is the test
// environment of brokers a Kafka operator runs on VMs: hosts with systemd,
// sshd, iptables and tc (images/sshhost), Apache Kafka as the unit
// kafka.service, reached by the orchestrator only by ssh. Docker makes the
// hosts and their network and nothing else: the brokers' wiring is written
// and Kafka started over ssh, every fault acts through the hooks of
// examples/hooks/ssh-systemd.yaml as written there (each ssh given the
// environment's ssh_config; on a kernel without netem, latency and heal by
// netdelay instead), no toxiproxy is in the data path, and every host gets
// this binary by scp: the worker hosts for --worker-exec 'ssh ... {{.Host}}',
// the broker hosts for netdelay.
const LayoutSSHHosts = "ssh-hosts"

// Files an ssh hosts directory adds to a standalone cluster's.
const (
	SSHConfigFile   = "ssh_config"
	SSHKeyFile      = "id_ed25519"
	WorkerHostsFile = "worker-hosts"
	WorkerExecFile  = "worker-exec"
)

// The ports examples/hooks/ssh-systemd.yaml assumes: clients, brokers,
// controllers.
const (
	sshHostClientPort     = 9092
	sshHostInternalPort   = 9093
	sshHostControllerPort = 9094
)

// SSHHostBrokers is the number of broker hosts: the example hooks file's
// latency and heal walk kafka-1..kafka-3.
const SSHHostBrokers = 3

// SSHWorkerBinary is where the worker hosts get this binary.
const SSHWorkerBinary = "/usr/local/bin/sharechaos"

// SSHHostsOptions configure an ssh hosts environment.
type SSHHostsOptions struct {
	// KafkaVersion is the release on the broker hosts (sharechaos/sshhost:V).
	KafkaVersion string
	// WorkerHosts is the number of worker hosts (0: none).
	WorkerHosts int
	// WorkerBinary is the local sharechaos binary every host gets (the
	// workers', and netdelay's on a kernel without netem).
	WorkerBinary string
	RunID        string
	Logger       *slog.Logger
	// StartTimeout bounds the brokers' start (default 3 minutes).
	StartTimeout time.Duration
}

// SSHHostImage is the ssh host image of a release.
func SSHHostImage(version string) string { return "sharechaos/sshhost:" + version }

// sshHostWiring is one broker host's listeners: the example hooks file's
// ports, the brokers and controllers by their host names on the hosts'
// network, the clients at the host's address (which the orchestrator, off
// that network's DNS, dials).
func sshHostWiring(node int, addr string) map[string]string {
	voters := make([]string, 0, SSHHostBrokers)
	for n := 1; n <= SSHHostBrokers; n++ {
		voters = append(voters, fmt.Sprintf("%d@%s:%d", n, sshBrokerHost(n), sshHostControllerPort))
	}
	return map[string]string{
		"process.roles":            "broker,controller",
		"node.id":                  strconv.Itoa(node),
		"controller.quorum.voters": strings.Join(voters, ","),
		"listeners": fmt.Sprintf("CLIENT://0.0.0.0:%d,INTERNAL://0.0.0.0:%d,CONTROLLER://0.0.0.0:%d",
			sshHostClientPort, sshHostInternalPort, sshHostControllerPort),
		"advertised.listeners": fmt.Sprintf("CLIENT://%s:%d,INTERNAL://%s:%d,CONTROLLER://%s:%d",
			addr, sshHostClientPort, sshBrokerHost(node), sshHostInternalPort, sshBrokerHost(node), sshHostControllerPort),
		"listener.security.protocol.map": "CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name":     "INTERNAL",
		"controller.listener.names":      "CONTROLLER",
		"log.dirs":                       "/var/lib/kafka/data",
	}
}

func sshBrokerHost(n int) string { return fmt.Sprintf("kafka-%d", n) }
func sshWorkerHost(n int) string { return fmt.Sprintf("worker-%d", n) }

// sshHost is one host of the environment.
type sshHost struct {
	name string // its name in ssh_config and on the hosts' network
	ctr  testcontainers.Container
	addr string
}

// UpSSHHosts starts an ssh hosts environment and writes dir: cluster.json,
// bootstrap, hooks.yaml, ssh_config and its key, worker-hosts and
// worker-exec. It returns with Kafka running on every broker host; Down
// removes the hosts. A failed start leaves nothing behind.
func UpSSHHosts(ctx context.Context, o SSHHostsOptions, dir string) (st Standalone, err error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 3 * time.Minute
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %s already holds a cluster (cluster down %s first)", dir, dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %w", err)
	}
	for _, tool := range []string{"ssh", "ssh-keygen", "scp"} {
		if _, err := exec.LookPath(tool); err != nil {
			return Standalone{}, fmt.Errorf("start ssh hosts: %s not found: the orchestrator reaches the hosts with OpenSSH's client (Debian: apt-get install openssh-client)", tool)
		}
	}
	setTestcontainersEnv()
	eng, err := newEngine(ctx)
	if err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %w", err)
	}
	defer eng.Close()
	image := SSHHostImage(o.KafkaVersion)
	if !eng.imageExists(ctx, image) {
		return Standalone{}, fmt.Errorf("start ssh hosts: image %s is missing: build it with KAFKA_VERSIONS=%s make images", image, o.KafkaVersion)
	}
	labels := standaloneLabels(o.RunID, "ssh-host", 0)
	defer func() {
		if err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			_ = eng.removeLabelled(cctx, LabelStandalone, o.RunID)
			removeSSHHostFiles(abs)
		}
	}()

	key := filepath.Join(abs, SSHKeyFile)
	if out, err := exec.CommandContext(ctx, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sharechaos-"+o.RunID, "-f", key).CombinedOutput(); err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %w", err)
	}
	network := "sharechaos-" + o.RunID + "-hosts"
	if err := eng.createNetwork(ctx, network, labels, false); err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %w", err)
	}
	var hosts []*sshHost
	for n := 1; n <= SSHHostBrokers; n++ {
		hosts = append(hosts, &sshHost{name: sshBrokerHost(n)})
	}
	for n := 1; n <= o.WorkerHosts; n++ {
		hosts = append(hosts, &sshHost{name: sshWorkerHost(n)})
	}
	if err := startSSHHosts(ctx, o, image, network, labels, pub, hosts); err != nil {
		return Standalone{}, err
	}
	cfg := filepath.Join(abs, SSHConfigFile)
	if err := os.WriteFile(cfg, []byte(sshConfig(hosts, key)), 0o644); err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: %w", err)
	}
	sh := sshRunner{config: cfg}
	for _, h := range hosts {
		if err := sh.waitUp(ctx, h.name, time.Minute); err != nil {
			return Standalone{}, err
		}
	}
	o.Logger.Info("ssh hosts answer", "hosts", len(hosts))

	// Over ssh from here on, as on VMs.
	clusterID := newClusterID()
	var bootstrap []string
	for n := 1; n <= SSHHostBrokers; n++ {
		h := hosts[n-1]
		props := renderProperties(fmt.Sprintf("broker %d of %d on ssh host %s, written by sharechaos cluster up --layout ssh-hosts", n, SSHHostBrokers, h.name),
			SSHHostBrokers, nil, sshHostWiring(n, h.addr))
		// The heap is start.sh's default, the JIT the docker backend's.
		env := fmt.Sprintf("CLUSTER_ID=%s\nKAFKA_OPTS=%s\n", clusterID, jitOpts[JITC1])
		if err := sh.write(ctx, h.name, brokerConfigPath, props); err != nil {
			return Standalone{}, err
		}
		if err := sh.write(ctx, h.name, "/etc/kafka/cluster.env", env); err != nil {
			return Standalone{}, err
		}
		bootstrap = append(bootstrap, fmt.Sprintf("%s:%d", h.addr, sshHostClientPort))
	}
	for _, h := range hosts[:SSHHostBrokers] {
		if _, err := sh.run(ctx, h.name, "sudo systemctl start kafka.service"); err != nil {
			return Standalone{}, err
		}
	}
	// Every host gets this binary: the worker hosts run workers with it,
	// the broker hosts netdelay where the kernel has no netem.
	var workers []string
	for i, h := range hosts {
		if err := sh.copy(ctx, o.WorkerBinary, h.name, SSHWorkerBinary); err != nil {
			return Standalone{}, err
		}
		if i >= SSHHostBrokers {
			workers = append(workers, h.name)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	if err := waitSSHBrokers(rctx, bootstrap, o.Logger); err != nil {
		return Standalone{}, fmt.Errorf("start ssh hosts: the brokers did not become ready within %s: %w%s", o.StartTimeout, err, sh.journal(ctx, hosts[0].name))
	}
	netem := sh.hasNetem(ctx, hosts[0].name)
	st = Standalone{RunID: o.RunID, KafkaImage: image, Bootstrap: bootstrap, Layout: LayoutSSHHosts,
		SSHConfig: cfg, WorkerHosts: workers}
	for _, h := range hosts {
		st.Containers = append(st.Containers, h.ctr.GetContainerID())
	}
	if err := writeStandalone(abs, st, sshHostsHooks(cfg, netem), map[string]string{
		WorkerHostsFile: strings.Join(workers, ",") + "\n",
		WorkerExecFile:  sshWorkerExec(cfg) + "\n",
	}); err != nil {
		return Standalone{}, err
	}
	return st, nil
}

// startSSHHosts starts every host at once: systemd as PID 1 (which wants
// CAP_SYS_ADMIN, its own cgroup namespace and a tmpfs /run), NET_ADMIN for
// iptables and tc, root's authorized key. The addresses are read back into
// hosts.
func startSSHHosts(ctx context.Context, o SSHHostsOptions, image, network string, labels map[string]string, pub []byte, hosts []*sshHost) error {
	var wg sync.WaitGroup
	errs := make([]error, len(hosts))
	for i, h := range hosts {
		wg.Go(func() {
			req := testcontainers.GenericContainerRequest{
				ContainerRequest: testcontainers.ContainerRequest{
					Image:          image,
					Name:           "sharechaos-" + o.RunID + "-" + h.name,
					Hostname:       h.name,
					Labels:         labels,
					Networks:       []string{network},
					NetworkAliases: map[string][]string{network: {h.name}},
					Files: []testcontainers.ContainerFile{{
						Reader: bytes.NewReader(pub), ContainerFilePath: "/root/.ssh/authorized_keys", FileMode: 0o600,
					}},
					HostConfigModifier: func(hc *container.HostConfig) {
						hc.CapAdd = []string{"SYS_ADMIN", "NET_ADMIN"}
						hc.SecurityOpt = []string{"seccomp=unconfined"}
						hc.CgroupnsMode = container.CgroupnsModePrivate
						hc.Tmpfs = map[string]string{"/run": "", "/run/lock": ""}
					},
				},
				Started: true,
				Logger:  tcLogger{Options{Logger: o.Logger}},
			}
			ctr, err := testcontainers.GenericContainer(ctx, req)
			h.ctr = ctr
			if err != nil {
				errs[i] = fmt.Errorf("start ssh host %s: %w", h.name, err)
				return
			}
			ip, err := ctr.ContainerIP(ctx)
			if err != nil {
				errs[i] = fmt.Errorf("find ssh host %s's address: %w", h.name, err)
				return
			}
			h.addr = ip
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sshConfig names every host with its address and the environment's key;
// the hosts are made anew each time, so their keys are not remembered.
func sshConfig(hosts []*sshHost, key string) string {
	var b strings.Builder
	b.WriteString("# The ssh hosts of a sharechaos cluster up --layout ssh-hosts.\n")
	for _, h := range hosts {
		fmt.Fprintf(&b, "Host %s\n  HostName %s\n", h.name, h.addr)
	}
	fmt.Fprintf(&b, `Host *
  User root
  IdentityFile %s
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 5
  ServerAliveInterval 2
  ServerAliveCountMax 3
`, key)
	return b.String()
}

// sshWorkerExec is the --worker-exec of the environment's worker hosts.
func sshWorkerExec(cfg string) string { return "ssh -F " + shellQuote(cfg) + " -T {{.Host}}" }

// sshHostsHooks is examples/hooks/ssh-systemd.yaml as written, each ssh
// given the environment's ssh_config. Where the kernel lacks netem, its
// latency and heal hooks are replaced by ones that delay the same traffic
// through NFQUEUE (netdelay), since tc could only fail there.
func sshHostsHooks(cfg string, netem bool) string {
	ssh := "ssh -F " + shellQuote(cfg) + " "
	var b strings.Builder
	b.WriteString("# examples/hooks/ssh-systemd.yaml, run by sharechaos cluster up --layout ssh-hosts:\n")
	b.WriteString("# each ssh is given -F " + cfg + "; nothing else changed")
	if !netem {
		b.WriteString(",\n# except latency and heal: this kernel has no netem qdisc (tc qdisc ... netem:\n" +
			"# \"Specified qdisc kind is unknown\"), so latency holds the brokers' outgoing Kafka\n" +
			"# packets in an NFQUEUE queue that sharechaos's netdelay role, run by systemd on\n" +
			"# each host, accepts after the delay ± jitter (internal/netdelay); heal removes\n" +
			"# the rule and stops it too")
	}
	b.WriteString(".\n")
	skipping := false
	for _, line := range strings.SplitAfter(examples.SSHSystemdHooks, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    ") {
			skipping = false
			if !netem && (strings.HasPrefix(trimmed, "latency:") || strings.HasPrefix(trimmed, "heal:")) {
				skipping = true
				if strings.HasPrefix(trimmed, "latency:") {
					b.WriteString(netdelayLatencyHook(ssh))
				} else {
					b.WriteString(netdelayHealHook(ssh))
				}
			}
		}
		switch {
		case skipping:
		case strings.HasPrefix(trimmed, "#"):
			b.WriteString(line)
		default:
			b.WriteString(strings.ReplaceAll(line, "ssh ", ssh))
		}
	}
	return b.String()
}

// netdelayRule is the iptables rule that hands a broker host's outgoing
// Kafka packets (clients 9092, brokers 9093, controllers 9094) to netdelay;
// --queue-bypass lets them through whenever netdelay is not running.
const netdelayRule = "OUTPUT -o eth0 -p tcp -m multiport --ports 9092,9093,9094 -j NFQUEUE --queue-num 7 --queue-bypass"

// netdelayLatencyHook starts netdelay on every broker host as a transient
// systemd unit, checks that it runs, then adds the rule.
func netdelayLatencyHook(ssh string) string {
	return "  latency: >-\n" +
		"    for h in kafka-1 kafka-2 kafka-3; do\n" +
		"    " + ssh + "$h 'sudo iptables -D " + netdelayRule + " 2>/dev/null; sudo systemctl stop sharechaos-netdelay 2>/dev/null;\n" +
		"    sudo systemd-run --quiet --collect --unit sharechaos-netdelay -E SHARECHAOS_ROLE=" + netdelay.Role + " " + SSHWorkerBinary +
		" --queue 7 --delay {{.LatencyMs}}ms --jitter {{.JitterMs}}ms &&\n" +
		"    sleep 0.5 && { sudo systemctl is-active --quiet sharechaos-netdelay || { sudo journalctl -u sharechaos-netdelay -n 5 --no-pager; exit 1; }; } &&\n" +
		"    sudo iptables -I " + netdelayRule + "' || exit 1; done\n"
}

// netdelayHealHook is the example's heal, then the rule removed and
// netdelay stopped (it accepts what it still holds first), and its last
// line, how many packets it held on that host, printed into hooks.log.
func netdelayHealHook(ssh string) string {
	return "  heal: >-\n" +
		"    for h in kafka-1 kafka-2 kafka-3; do\n" +
		"    " + ssh + "$h 'sudo iptables -F SHARECHAOS 2>/dev/null; sudo tc qdisc del dev eth0 root 2>/dev/null;\n" +
		"    sudo iptables -D " + netdelayRule + " 2>/dev/null;\n" +
		"    if sudo systemctl is-active --quiet sharechaos-netdelay; then sudo systemctl stop sharechaos-netdelay;\n" +
		"    sudo journalctl -u sharechaos-netdelay -o cat --no-pager | grep \"netdelay: held\" | tail -1 | sed \"s/^/$(hostname): /\"; fi; true' || exit 1; done\n"
}

// removeSSHHostFiles removes what UpSSHHosts wrote into dir.
func removeSSHHostFiles(dir string) {
	for _, f := range []string{SSHConfigFile, SSHKeyFile, SSHKeyFile + ".pub", WorkerHostsFile, WorkerExecFile,
		StateFile, BootstrapFile, HooksFile} {
		_ = os.Remove(filepath.Join(dir, f))
	}
}

// waitSSHBrokers waits until every broker is in the metadata and a share
// group consumes a record, as the docker backend's own start does.
func waitSSHBrokers(ctx context.Context, bootstrap []string, log *slog.Logger) error {
	admin, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.DialTimeout(3*time.Second),
		kgo.RetryTimeout(10*time.Second), kgo.MetadataMinAge(250*time.Millisecond))
	if err != nil {
		return err
	}
	defer admin.Close()
	c := &Cluster{opts: Options{Brokers: SSHHostBrokers, Logger: log}, admin: admin, adm: kadm.NewClient(admin), bootstrap: bootstrap}
	return c.waitReady(ctx)
}

// sshRunner runs commands on the hosts with the environment's ssh_config.
type sshRunner struct{ config string }

const sshCallTimeout = time.Minute

func (s sshRunner) run(ctx context.Context, host, command string) (string, error) {
	return s.runInput(ctx, host, command, "")
}

func (s sshRunner) runInput(ctx context.Context, host, command, input string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, sshCallTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "ssh", "-F", s.config, "-T", host, command)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ssh %s %q: %v: %s", host, command, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// write puts text into path on host.
func (s sshRunner) write(ctx context.Context, host, path, text string) error {
	_, err := s.runInput(ctx, host, "mkdir -p "+shellQuote(filepath.Dir(path))+" && cat > "+shellQuote(path), text)
	return err
}

// copy puts the local file into path on host, executable.
func (s sshRunner) copy(ctx context.Context, local, host, path string) error {
	cctx, cancel := context.WithTimeout(ctx, sshCallTimeout)
	defer cancel()
	if out, err := exec.CommandContext(cctx, "scp", "-q", "-F", s.config, local, host+":"+path).CombinedOutput(); err != nil {
		return fmt.Errorf("scp %s to %s:%s: %v: %s", local, host, path, err, strings.TrimSpace(string(out)))
	}
	_, err := s.run(ctx, host, "chmod 755 "+shellQuote(path))
	return err
}

// waitUp waits until host's sshd lets us in and its systemd has booted.
func (s sshRunner) waitUp(ctx context.Context, host string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var err error
	for time.Now().Before(deadline) {
		var out string
		out, err = s.run(ctx, host, "systemctl is-system-running --wait")
		if err == nil || strings.Contains(out, "degraded") {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return fmt.Errorf("start ssh hosts: %s did not let us in within %s: %w", host, within, err)
}

// hasNetem says whether tc's netem qdisc exists on host's kernel.
func (s sshRunner) hasNetem(ctx context.Context, host string) bool {
	_, err := s.run(ctx, host, "tc qdisc add dev lo root netem delay 1ms && tc qdisc del dev lo root")
	return err == nil
}

// journal is the end of kafka.service's journal on host, to explain a
// start that failed.
func (s sshRunner) journal(ctx context.Context, host string) string {
	out, err := s.run(context.WithoutCancel(ctx), host, "journalctl -u kafka.service --no-pager -n 15")
	if err != nil {
		return ""
	}
	return "; " + host + "'s kafka.service journal:\n\t" + strings.ReplaceAll(strings.TrimSpace(out), "\n", "\n\t")
}
