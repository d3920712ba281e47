package embedded

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

// BrokerRole is the hidden child role (role.EnvVar) of the broker process. A
// binary that starts embedded clusters must dispatch it before parsing its own
// command line:
//
//	if role.Current() == embedded.BrokerRole { os.Exit(embedded.BrokerMain(os.Args[1:])) }
const BrokerRole = "broker"

// readyPrefix starts the one line BrokerMain prints on stdout once every
// listener is bound; the advertised addresses follow, comma-separated.
const readyPrefix = "sharechaos-broker ready "

// brokerArgs is the broker child's command line, built by the parent and
// parsed by BrokerMain, so both sides share one definition.
type brokerArgs struct {
	ports      []int             // the brokers' own listening ports on 127.0.0.1, node i on ports[i]
	advertise  []string          // what node i advertises (its proxy); empty: its own address
	dataDir    string            // kfake.DataDir; empty: in memory
	syncWrites bool              // kfake.SyncWrites
	configs    map[string]string // kfake.BrokerConfigs
	logLevel   string            // none, error, warn, info, debug
	ref        Reference         // the binary to start and its KIP-1289 flags (not encoded: see brokerCommand)
}

func (a brokerArgs) encode() []string {
	args := []string{
		"-ports", joinInts(a.ports),
		"-log-level", a.logLevel,
	}
	if len(a.advertise) > 0 {
		args = append(args, "-advertise", strings.Join(a.advertise, ","))
	}
	if a.dataDir != "" {
		args = append(args, "-data-dir", a.dataDir)
	}
	if a.syncWrites {
		args = append(args, "-sync")
	}
	for _, k := range slices.Sorted(maps.Keys(a.configs)) {
		args = append(args, "-config", k+"="+a.configs[k])
	}
	return args
}

// parseBrokerArgs reads the child's command line. Arguments of the form
// -test.* (with any value joined by "=", as go test passes them) are dropped
// first: a test binary re-executed as a broker may be handed them by tooling,
// and they are not ours.
func parseBrokerArgs(args []string, stderr io.Writer) (brokerArgs, error) {
	var own []string
	for _, arg := range args {
		if strings.HasPrefix(arg, "-test.") || strings.HasPrefix(arg, "--test.") {
			continue
		}
		own = append(own, arg)
	}

	a := brokerArgs{configs: make(map[string]string)}
	var ports, advertise string
	fs := flag.NewFlagSet(BrokerRole, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ports, "ports", "", "comma-separated listening ports on 127.0.0.1, one per broker (required)")
	fs.StringVar(&advertise, "advertise", "", "comma-separated host:port each broker advertises, in -ports order (default: its own address)")
	fs.StringVar(&a.dataDir, "data-dir", "", "kfake persistence directory (default: in memory)")
	fs.BoolVar(&a.syncWrites, "sync", false, "fsync every produced batch")
	fs.StringVar(&a.logLevel, "log-level", DefaultLogLevel, "kfake log level: none, error, warn, info, debug")
	fs.Func("config", "broker config key=value (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("want key=value, got %q", s)
		}
		a.configs[k] = v
		return nil
	})
	if err := fs.Parse(own); err != nil {
		return a, err
	}
	if fs.NArg() > 0 {
		return a, fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	var err error
	if a.ports, err = splitInts(ports); err != nil {
		return a, fmt.Errorf("parse -ports: %w", err)
	}
	if len(a.ports) == 0 {
		return a, fmt.Errorf("parse -ports: at least one port is required")
	}
	if advertise != "" {
		a.advertise = strings.Split(advertise, ",")
		if len(a.advertise) != len(a.ports) {
			return a, fmt.Errorf("parse -advertise: %d addresses for %d ports", len(a.advertise), len(a.ports))
		}
	}
	if _, ok := logLevels[strings.ToLower(a.logLevel)]; !ok {
		return a, fmt.Errorf("parse -log-level: unknown level %q", a.logLevel)
	}
	return a, nil
}

var logLevels = map[string]kfake.LogLevel{
	"none":  kfake.LogLevelNone,
	"error": kfake.LogLevelError,
	"warn":  kfake.LogLevelWarn,
	"info":  kfake.LogLevelInfo,
	"debug": kfake.LogLevelDebug,
}

// BrokerMain runs the broker child: one kfake cluster with a listener per
// broker on fixed 127.0.0.1 ports, each advertising its proxy's address. It
// logs to stderr, prints one ready line on stdout once it listens, and on
// SIGTERM or SIGINT closes kfake gracefully (which is what saves share-group
// progress and group configs in the data directory) and returns 0. A second
// signal during that close gives up and returns 1. It returns 2 for a bad
// command line and 1 when kfake cannot start.
func BrokerMain(args []string) int {
	a, err := parseBrokerArgs(args, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "broker: %v\n", err)
		return 2
	}

	// Subscribe before starting kfake: a stop requested while kfake loads a
	// large data directory must still end in a graceful Close.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)

	advertise := make(map[string]string, len(a.ports))
	for i, p := range a.ports {
		own := "127.0.0.1:" + strconv.Itoa(p)
		advertise[own] = own
		if len(a.advertise) > 0 {
			advertise[own] = a.advertise[i]
		}
	}
	opts := []kfake.Opt{
		kfake.Ports(a.ports...),
		kfake.ListenFn(advertisingListenFn(advertise)),
		kfake.WithLogger(kfake.BasicLogger(os.Stderr, logLevels[strings.ToLower(a.logLevel)])),
		kfake.BrokerConfigs(a.configs),
	}
	if a.dataDir != "" {
		opts = append(opts, kfake.DataDir(a.dataDir))
	}
	if a.syncWrites {
		opts = append(opts, kfake.SyncWrites())
	}

	fmt.Fprintf(os.Stderr, "broker: starting kfake, %d brokers on ports %s, advertising %s, data dir %q\n",
		len(a.ports), joinInts(a.ports), strings.Join(slices.Sorted(maps.Values(advertise)), ","), a.dataDir)
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "broker: start kfake: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stdout, "%s%s\n", readyPrefix, strings.Join(c.ListenAddrs(), ","))
	fmt.Fprintf(os.Stderr, "broker: ready\n")

	sig := <-sigs
	fmt.Fprintf(os.Stderr, "broker: %v: closing kfake gracefully\n", sig)
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
		fmt.Fprintf(os.Stderr, "broker: closed\n")
		return 0
	case sig := <-sigs:
		fmt.Fprintf(os.Stderr, "broker: %v during close: exiting without finishing it\n", sig)
		return 1
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func splitInts(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	return ns, nil
}
