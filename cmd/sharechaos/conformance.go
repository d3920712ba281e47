package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/suites/conformancekit"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
)

const conformanceLong = `Runs KIP-1289's conformance kit: every case pins down one thing the KIP asks
of a broker (a commit materializes each share-partition's acks, an abort
returns them, a fenced producer is refused, one request carries several
share-partitions, topics, batches and ack types, a pending ack survives a
restart or a leader's death ...), checked on the broker's state afterwards
(what is delivered again, to whom, and what never comes back).

--backend embedded runs it on the reference broker (make refbroker), docker
on an image with KIP-1289 built in (--kafka-image, default ours), external on
a cluster you started (--bootstrap, --client-config; the failovers through
--fault-hooks: cases that need a restart, a leader kill or a leader move the
hooks do not give are N/A with the reason). A broker that does not serve both
KIP-1289 APIs (at --kip1289-keys) is a usage error naming what it lacks.

Writes conformance.json (each case's verdict, the requests it sent and the
broker's answers), summary.md and junit.xml into --out. docs/CONFORMANCE.md
says what each case checks and which differences between implementations are
allowed.`

const conformanceExample = `  sharechaos conformance                                  # the reference broker
  sharechaos conformance --backend docker                 # our patched Kafka image
  sharechaos cluster up --kafka-image sharechaos/kafka-kip1289:4.3.1 --out /tmp/k
  sharechaos conformance --backend external --bootstrap $(cat /tmp/k/bootstrap) --fault-hooks /tmp/k/hooks.yaml
  sharechaos conformance --case one-request-several-partitions-commit --case commit-materializes`

// conformanceFlags are conformance's settings as given.
type conformanceFlags struct {
	o       conformancekit.Options
	keys    harness.ListFlag
	cases   harness.ListFlag
	list    bool
	verbose bool
}

func newConformanceCmd() *cobra.Command {
	var f conformanceFlags
	cmd := &cobra.Command{
		Use:     "conformance [flags]",
		Short:   "run the KIP-1289 conformance kit against a broker",
		Long:    conformanceLong,
		Example: conformanceExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return codeOf(conformanceRun(cmd, &f, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
		Annotations: map[string]string{footerKey: exitCodes},
	}
	fs := cmd.Flags()
	o := &f.o
	fs.StringVar(&o.Backend, "backend", "embedded", "embedded (the reference broker) | docker (an image with KIP-1289) | external (--bootstrap)")
	fs.StringVar(&o.KafkaImage, "kafka-image", "", "docker: the image with KIP-1289 built in (default sharechaos/kafka-kip1289, built by make images)")
	fs.StringVar(&o.External.Bootstrap, "bootstrap", "", "external: the cluster's HOST:PORT,...")
	fs.StringVar(&o.External.ClientConfig, "client-config", "", "external: client properties (TLS, SASL), like Kafka's --command-config")
	fs.StringVar(&o.External.FaultHooks, "fault-hooks", "", "external: YAML of the commands that restart and kill brokers (examples/hooks/; cluster up writes one)")
	fs.StringVar(&o.PendingLock, "kip1289-pending-lock", conformance.PolicyExpire, "external: the broker's pending-lock policy as configured (expire | hold); cases that need the other are N/A")
	fs.Var(&f.keys, "kip1289-keys", "API keys of AddShareAcksToTxn,TxnShareAcknowledge (default 12890,12891)")
	fs.Var(&f.cases, "case", "run only these cases, repeated or comma-separated (--list names them)")
	fs.BoolVar(&f.list, "list", false, "list the cases and exit")
	fs.StringVar(&o.Out, "out", "", "report directory (default runs/conformance-<time>)")
	fs.DurationVar(&o.CaseTimeout, "case-timeout", 2*time.Minute, "longest one case may take")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log the kit's steps (cluster start, hooks) on stderr")
	return cmd
}

func conformanceRun(cmd *cobra.Command, f *conformanceFlags, stdout, stderr io.Writer) int {
	if f.list {
		for _, c := range conformance.Cases {
			fmt.Fprintln(stdout, c.Name)
		}
		return 0
	}
	usage := func(err error) int {
		fmt.Fprintln(stderr, "sharechaos conformance:", err)
		return verdict.ExitUsage
	}
	o := f.o
	o.Keys, o.Cases = kip1289.DefaultAPIKeys(), f.cases
	if len(f.keys) > 0 {
		keys, err := harness.ParseKeys(f.keys)
		if err != nil {
			return usage(fmt.Errorf("--kip1289-keys: %w", err))
		}
		o.Keys = keys
	}
	if o.Out == "" {
		o.Out = filepath.Join("runs", "conformance-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	o.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	o.Progress = stdout
	if err := o.Check(); err != nil {
		return usage(err)
	}
	_, statErr := os.Stat(o.Out)
	preexisting := statErr == nil
	rep, err := conformancekit.Run(cmd.Context(), o)
	var ue *harness.UsageError
	switch {
	case errors.As(err, &ue):
		if !preexisting {
			// Nothing was judged: leave no directory (a started broker's logs).
			_ = os.RemoveAll(o.Out)
		}
		return usage(err)
	case err != nil:
		fmt.Fprintln(stderr, "sharechaos conformance: HARNESS-ERROR:", err)
		rep.Verdict, rep.ExitCode = verdict.HarnessError, verdict.ExitHarnessError
	}
	if werr := reports.WriteConformance(o.Out, rep); werr != nil {
		fmt.Fprintln(stderr, "sharechaos conformance: write the report:", werr)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "\n%s: %d cases against %s\nreport: %s\n", rep.Verdict, len(rep.Cases), rep.Broker, filepath.Join(o.Out, "summary.md"))
	return rep.ExitCode
}
