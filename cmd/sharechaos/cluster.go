package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

const clusterUsage = `Usage:
  sharechaos cluster up [--brokers N] [--out DIR] [--kafka-image IMAGE | --kafka-version VERSION]
      start the docker cluster (every link behind toxiproxy) standalone: it keeps
      running after this returns; DIR gets bootstrap, hooks.yaml and cluster.json
  sharechaos cluster down DIR
      remove it (every container and network)
  sharechaos cluster fault DIR ACTION [ARGS]
      act on it (what DIR/hooks.yaml calls): kill N, start N, restart N, pause N,
      resume N, isolate N, disconnect A B, latency 100ms 20ms, heal
`

func clusterCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, clusterUsage)
		return verdict.ExitUsage
	}
	switch args[0] {
	case "up":
		return clusterUp(ctx, args[1:], stdout, stderr)
	case "down":
		if len(args) != 2 {
			fmt.Fprint(stderr, clusterUsage)
			return verdict.ExitUsage
		}
		if err := docker.Down(context.WithoutCancel(ctx), args[1]); err != nil {
			fmt.Fprintln(stderr, "sharechaos cluster down:", err)
			return verdict.ExitHarnessError
		}
		fmt.Fprintf(stdout, "cluster in %s removed\n", args[1])
		return 0
	case "fault":
		if len(args) < 3 {
			fmt.Fprint(stderr, clusterUsage)
			return verdict.ExitUsage
		}
		fctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := docker.Fault(fctx, args[1], args[2:]); err != nil {
			fmt.Fprintln(stderr, "sharechaos cluster fault:", err)
			return verdict.ExitHarnessError
		}
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, clusterUsage)
		return 0
	}
	fmt.Fprintf(stderr, "sharechaos cluster: unknown subcommand %q\n\n%s", args[0], clusterUsage)
	return verdict.ExitUsage
}

func clusterUp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cluster up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.Int("brokers", 3, "brokers in the cluster")
	out := fs.String("out", "cluster", "directory for bootstrap, hooks.yaml and cluster.json")
	image := fs.String("kafka-image", "", "the Kafka image (default $SHARECHAOS_KAFKA_IMAGE, else ours)")
	version := fs.String("kafka-version", "", "an Apache Kafka release to run on our image of it (make images KAFKA_VERSIONS=...); not with --kafka-image")
	verbose := fs.Bool("v", false, "log every step")
	if err := fs.Parse(args); err != nil {
		return verdict.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sharechaos cluster up: unexpected arguments %s\n", strings.Join(fs.Args(), " "))
		return verdict.ExitUsage
	}
	if *version != "" {
		if err := clusterVersion(ctx, *version, *image); err != nil {
			fmt.Fprintln(stderr, "sharechaos cluster up:", err)
			return verdict.ExitUsage
		}
		*image = docker.VersionImage(*version)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "sharechaos cluster up: find this binary:", err)
		return verdict.ExitHarnessError
	}
	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	st, err := docker.Up(ctx, docker.Options{Brokers: *brokers, KafkaImage: *image, RunID: "standalone-" + fmt.Sprint(time.Now().Unix()), Logger: log}, *out, self)
	if err != nil {
		fmt.Fprintln(stderr, "sharechaos cluster up:", err)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "cluster %s up: bootstrap %s\n", st.RunID, strings.Join(st.Bootstrap, ","))
	fmt.Fprintf(stdout, "run against it: sharechaos run --backend external --bootstrap \"$(cat %s/bootstrap)\" --fault-hooks %s/hooks.yaml\n", *out, *out)
	fmt.Fprintf(stdout, "remove it:      sharechaos cluster down %s\n", *out)
	return 0
}

// newClusterCmd puts the standalone cluster's commands into the command
// tree; they parse their own arguments (clusterUsage), as the hooks files
// written by `cluster up` call them.
func newClusterCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "cluster up|down|fault",
		Short:              "a standalone docker cluster for --backend external",
		Long:               strings.TrimSpace(clusterUsage),
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return codeOf(clusterCmd(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
}

// clusterVersion refuses a --kafka-version that is not a release, given
// with --kafka-image, or whose image was not built.
func clusterVersion(ctx context.Context, version, image string) error {
	if image != "" {
		return fmt.Errorf("--kafka-version and --kafka-image: give one")
	}
	if err := docker.CheckVersion(version); err != nil {
		return fmt.Errorf("--kafka-version: %w", err)
	}
	missing, err := docker.MissingImages(ctx, []string{docker.VersionImage(version)})
	if err != nil {
		return fmt.Errorf("--kafka-version: %w", err)
	}
	if len(missing) > 0 {
		return fmt.Errorf("--kafka-version: image %s missing: build it with make images KAFKA_VERSIONS=%s", missing[0], version)
	}
	return nil
}
