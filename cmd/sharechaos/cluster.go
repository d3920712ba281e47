package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharechaos/sharechaos/docker/images"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
)

const clusterLong = `A standalone docker cluster for --backend external: Apache Kafka brokers
with every link behind toxiproxy, left running after the command returns, so
that run, bench or another tool can be pointed at a cluster the suite did not
start. 'cluster up' writes DIR/bootstrap, DIR/hooks.yaml (the fault hooks
that --fault-hooks reads, each calling 'cluster fault') and DIR/cluster.json;
'cluster down DIR' removes every container and network.`

const clusterExample = `  sharechaos cluster up --out /tmp/kafka --kafka-version 4.3.2
  sharechaos run --backend external --bootstrap "$(cat /tmp/kafka/bootstrap)" \
      --fault-hooks /tmp/kafka/hooks.yaml --profile smoke
  sharechaos cluster fault /tmp/kafka kill 2
  sharechaos cluster down /tmp/kafka`

// newClusterCmd puts the standalone cluster's commands into the command
// tree: up, down and fault, each with its help; the hooks files that
// `cluster up` writes call `cluster fault`.
func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:         "cluster",
		Short:       "a standalone docker cluster for --backend external (up, down, fault)",
		Long:        clusterLong,
		Example:     clusterExample,
		Args:        noArgs,
		RunE:        func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		Annotations: map[string]string{footerKey: exitCodes},
	}
	cmd.AddCommand(newClusterUpCmd(), newClusterDownCmd(), newClusterFaultCmd())
	return cmd
}

// clusterUpFlags are cluster up's settings as given.
type clusterUpFlags struct {
	brokers int
	out     string
	image   string
	version string
	jit     string
	// pendingLock is kip1289.pending.lock for an image with KIP-1289 built
	// in ("" : the image's default, expire); a stock image ignores it.
	pendingLock string
	// security is the client listener (docker.Securities).
	security string
	// layout is "" (brokers behind toxiproxy) or docker.LayoutSSHHosts.
	layout      string
	workerHosts int
	verbose     bool
}

func newClusterUpCmd() *cobra.Command {
	var f clusterUpFlags
	cmd := &cobra.Command{
		Use:   "up",
		Short: "start a standalone docker cluster and leave it running",
		Long: `Start Apache Kafka brokers in containers, every link behind toxiproxy, and
leave them running. DIR (--out) gets bootstrap (HOST:PORT,...), hooks.yaml
(the fault hooks for --fault-hooks) and cluster.json (what 'cluster fault'
and 'cluster down' read). A missing image is a usage error naming the
command that builds it; nothing is left behind when the start fails.`,
		Example: `  sharechaos cluster up                                   # 3 brokers of the default release, in ./cluster
  sharechaos cluster up --kafka-version 4.2.2 --out /tmp/k422
  sharechaos cluster up --kafka-image sharechaos/kafka-kip1289:4.3.1 --brokers 3`,
		Args:        noArgs,
		Annotations: map[string]string{footerKey: exitCodes},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return codeOf(clusterUp(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&f.brokers, "brokers", 3, "brokers in the cluster")
	fs.StringVar(&f.out, "out", "cluster", "directory for bootstrap, hooks.yaml and cluster.json")
	fs.StringVar(&f.image, "kafka-image", "", "the Kafka image (default $SHARECHAOS_KAFKA_IMAGE, else ours)")
	fs.StringVar(&f.version, "kafka-version", "", "an Apache Kafka release to run on our image of it (make images KAFKA_VERSIONS=...); not with --kafka-image")
	fs.StringVar(&f.security, "broker-security", docker.SecurityPlaintext, "the brokers' client listener: plaintext, or sasl_ssl (SCRAM-SHA-512 over mutual TLS; DIR gets client.properties, with the password, for --client-config, and tls/)")
	fs.StringVar(&f.jit, "broker-jit", docker.JITC1, "the brokers' JIT: c1 (fastest on few cores) or full (HotSpot's C2 too)")
	fs.StringVar(&f.pendingLock, "kip1289-pending-lock", "", "expire | hold: kip1289.pending.lock of an image with KIP-1289 built in (default: the image's, expire)")
	fs.StringVar(&f.layout, "layout", layoutProxied, "proxied: brokers in containers behind toxiproxy, faults by `cluster fault`; ssh-hosts: three broker hosts (systemd, sshd, iptables, tc) and --worker-hosts worker hosts reached only by ssh, faults by examples/hooks/ssh-systemd.yaml (DIR gets ssh_config, its key, worker-hosts and worker-exec)")
	fs.IntVar(&f.workerHosts, "worker-hosts", 2, "with --layout ssh-hosts: worker hosts for --worker-exec (they get this binary by scp)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log every step")
	annotateGroups(fs)
	return cmd
}

// layoutProxied is cluster up's default layout.
const layoutProxied = "proxied"

func newClusterDownCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "down DIR",
		Short:       "remove a standalone cluster (every container and network)",
		Long:        "Remove the standalone cluster whose state 'cluster up' wrote to DIR: every container and network.",
		Example:     "  sharechaos cluster down ./cluster",
		Args:        oneDir,
		Annotations: map[string]string{footerKey: exitCodes},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := docker.Down(context.WithoutCancel(cmd.Context()), args[0]); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "sharechaos cluster down:", err)
				return codeOf(verdict.ExitHarnessError)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cluster in %s removed\n", args[0])
			return nil
		},
	}
}

func newClusterFaultCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "fault DIR ACTION [ARGS]",
		Short: "act on a standalone cluster (what its hooks.yaml calls)",
		Long: `Act on the standalone cluster in DIR, as its hooks.yaml does: kill N, start N,
restart N, pause N, resume N, isolate N, disconnect A B, latency 100ms 20ms,
heal. N is a broker's node id (1..brokers).`,
		Example:            "  sharechaos cluster fault ./cluster kill 2\n  sharechaos cluster fault ./cluster latency 100ms 20ms\n  sharechaos cluster fault ./cluster heal",
		DisableFlagParsing: true,
		Annotations:        map[string]string{footerKey: exitCodes},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
				return cmd.Help()
			}
			if len(args) < 2 {
				return usageError{fmt.Errorf("want DIR ACTION [ARGS], got %d argument(s)", len(args))}
			}
			fctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
			defer cancel()
			if err := docker.Fault(fctx, args[0], args[1:]); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "sharechaos cluster fault:", err)
				return codeOf(verdict.ExitHarnessError)
			}
			return nil
		},
	}
}

func clusterUp(ctx context.Context, f clusterUpFlags, stdout, stderr io.Writer) int {
	usage := func(err error) int {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		return verdict.ExitUsage
	}
	if f.brokers <= 0 {
		return usage(fmt.Errorf("--brokers %d: want a positive number", f.brokers))
	}
	switch f.layout {
	case layoutProxied:
	case docker.LayoutSSHHosts:
		return clusterUpSSHHosts(ctx, f, stdout, stderr)
	default:
		return usage(fmt.Errorf("--layout %q: want %s or %s", f.layout, layoutProxied, docker.LayoutSSHHosts))
	}
	if !slices.Contains(docker.JITs, f.jit) {
		return usage(fmt.Errorf("--broker-jit %q: want one of %v", f.jit, docker.JITs))
	}
	if !slices.Contains(docker.Securities, f.security) {
		return usage(fmt.Errorf("--broker-security %q: want one of %v", f.security, docker.Securities))
	}
	if f.pendingLock != "" && f.pendingLock != "expire" && f.pendingLock != "hold" {
		return usage(fmt.Errorf("--kip1289-pending-lock %q: want expire or hold", f.pendingLock))
	}
	image := f.image
	if f.version != "" {
		if err := clusterVersion(f.version, f.image); err != nil {
			return usage(err)
		}
		image = docker.VersionImage(f.version)
	}
	flags := harness.DockerFlags{BrokerJIT: f.jit}
	if f.version != "" {
		flags.KafkaVersions = []string{f.version}
	} else if f.image != "" {
		flags.KafkaImages = []string{f.image}
	}
	if err := harness.CheckDockerImages(ctx, flags, docker.Name); err != nil {
		return usage(err)
	}
	self, log, err := upSelfAndLog(f.verbose, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		return verdict.ExitHarnessError
	}
	var configs map[string]string
	if f.pendingLock != "" {
		configs = map[string]string{"kip1289.pending.lock": f.pendingLock}
	}
	st, err := docker.Up(ctx, docker.Options{Brokers: f.brokers, KafkaImage: image, BrokerJIT: f.jit, BrokerConfigs: configs, Security: f.security,
		RunID: "standalone-" + fmt.Sprint(time.Now().Unix()), Logger: log}, f.out, self)
	if err != nil {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "cluster %s up: bootstrap %s\n", st.RunID, strings.Join(st.Bootstrap, ","))
	client := ""
	if st.ClientConfig != "" {
		client = " --client-config " + st.ClientConfig
	}
	fmt.Fprintf(stdout, "run against it: sharechaos run --backend external --bootstrap \"$(cat %s/bootstrap)\" --fault-hooks %s/hooks.yaml%s\n", f.out, f.out, client)
	fmt.Fprintf(stdout, "remove it:      sharechaos cluster down %s\n", f.out)
	return 0
}

// clusterUpSSHHosts starts the ssh hosts environment: only what its hosts
// offer is accepted (a stock release, three brokers, PLAINTEXT).
func clusterUpSSHHosts(ctx context.Context, f clusterUpFlags, stdout, stderr io.Writer) int {
	usage := func(err error) int {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		return verdict.ExitUsage
	}
	switch {
	case f.image != "":
		return usage(errors.New("--layout ssh-hosts runs our image of a stock release on each host: give --kafka-version, not --kafka-image"))
	case f.brokers != docker.SSHHostBrokers:
		return usage(fmt.Errorf("--layout ssh-hosts has %d broker hosts (its hooks file walks kafka-1..kafka-%d), not --brokers %d", docker.SSHHostBrokers, docker.SSHHostBrokers, f.brokers))
	case f.security != docker.SecurityPlaintext:
		return usage(errors.New("--layout ssh-hosts serves PLAINTEXT only; --broker-security sasl_ssl is the proxied layout's"))
	case f.pendingLock != "":
		return usage(errors.New("--kip1289-pending-lock: --layout ssh-hosts runs stock releases, without KIP-1289"))
	case f.workerHosts < 0:
		return usage(fmt.Errorf("--worker-hosts %d: want 0 or more", f.workerHosts))
	}
	version := f.version
	if version == "" {
		version = images.KafkaVersion
	} else if err := clusterVersion(version, ""); err != nil {
		return usage(err)
	}
	self, log, err := upSelfAndLog(f.verbose, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		return verdict.ExitHarnessError
	}
	st, err := docker.UpSSHHosts(ctx, docker.SSHHostsOptions{KafkaVersion: version, WorkerHosts: f.workerHosts, WorkerBinary: self,
		RunID: "standalone-" + fmt.Sprint(time.Now().Unix()), Logger: log}, f.out)
	if err != nil {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		if strings.Contains(err.Error(), "is missing") || strings.Contains(err.Error(), "not found") {
			return verdict.ExitUsage
		}
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "ssh hosts %s up: bootstrap %s, worker hosts %s\n", st.RunID, strings.Join(st.Bootstrap, ","), strings.Join(st.WorkerHosts, ","))
	workers := ""
	if len(st.WorkerHosts) > 0 {
		workers = fmt.Sprintf(" \\\n    --worker-exec \"$(cat %[1]s/worker-exec)\" --worker-hosts \"$(cat %[1]s/worker-hosts)\" --worker-binary %[2]s", f.out, docker.SSHWorkerBinary)
	}
	fmt.Fprintf(stdout, "run against it: sharechaos run --backend external --bootstrap \"$(cat %s/bootstrap)\" --fault-hooks %s/hooks.yaml%s\n", f.out, f.out, workers)
	fmt.Fprintf(stdout, "reach a host:   ssh -F %s kafka-1\n", st.SSHConfig)
	fmt.Fprintf(stdout, "remove it:      sharechaos cluster down %s\n", f.out)
	return 0
}

// upSelfAndLog is this binary (the hooks call it, the ssh hosts get a copy)
// and cluster up's log (every step with -v, else nothing).
func upSelfAndLog(verbose bool, stderr io.Writer) (string, *slog.Logger, error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("find this binary: %w", err)
	}
	if verbose {
		return self, slog.New(slog.NewTextHandler(stderr, nil)), nil
	}
	return self, slog.New(slog.DiscardHandler), nil
}

// clusterVersion refuses a --kafka-version that is not a release, or given
// with --kafka-image (its image is checked with the others).
func clusterVersion(version, image string) error {
	if image != "" {
		return fmt.Errorf("--kafka-version and --kafka-image: give one")
	}
	if err := docker.CheckVersion(version); err != nil {
		return fmt.Errorf("--kafka-version: %w", err)
	}
	return nil
}
