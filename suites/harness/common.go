package harness

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Common is the settings `run` and `bench` share. Zero fields take the
// defaults (WithDefaults).
type Common struct {
	Backend string // a registered backend name, or auto
	Brokers int
	Modes   []ctp.AckMode
	// TxnAcks is auto | ledger | native; OnUnsupported is fail | fallback.
	TxnAcks       string
	OnUnsupported string
	// Realizations, from --mode transactional/<realization> (repeatable),
	// run the transactional mode once per realization; empty: --txn-acks
	// decides one.
	Realizations []string
	// PendingLock is the pending-lock policy (expire | hold) of a broker
	// that speaks KIP-1289: the reference broker's on the embedded backend,
	// kip1289.pending.lock on the docker backend.
	PendingLock string
	// MemberTags is send | omit: whether the native realization's
	// TxnShareAcknowledge carries the proposed member id and epoch
	// (ctp.MemberTagsSend, ctp.MemberTagsOmit).
	MemberTags string
	// Consumer is the share consumer of the implicit and explicit modes
	// (kgo | sharechaos); the transactional mode's follows its realization
	// (native on ours, ledger on kgo's).
	Consumer string
	// Clients are the CTP worker's clients (--client go,java;
	// workerset.Clients): a run runs every cell once per client, a bench
	// one whole bench per client.
	Clients []string
	// WorkerExec, WorkerBinary and WorkerHosts run the workers on other
	// hosts (workerset.Remote); no WorkerExec runs them here.
	WorkerExec, WorkerBinary string
	WorkerHosts              []string
	// KIP1289Keys are the API keys of the KIP's RPCs (unallocated upstream:
	// the defaults are placeholders).
	KIP1289Keys kip1289.APIKeys
	// Thresholds are k6-style bounds ("txn_commit_duration{mode:transactional}: p(99)<250ms").
	Thresholds []string
	Seed       int64
	Out        string
	// Command is the command line, for the report's replay line.
	Command  string
	Progress io.Writer
	Log      *slog.Logger
	// Backends are the backends' own flags (--kafka-image, --bootstrap,
	// ...: backend.go's registry); KeepTopics keeps each cell's topics,
	// group and transactional ids (by default a cell deletes what it
	// created).
	Backends   BackendFlags
	KeepTopics bool
}

// Defaults shared by run and bench.
const (
	DefaultBrokers = 3
	// DefaultLock is the acquisition lock of chaos and bench cells.
	DefaultLock = 15 * time.Second
	// DeliveryLimit is the share groups' delivery-count limit: faults are
	// one-shot per record, so a correct system never archives (ORACLE.md).
	DeliveryLimit = 10
)

// WithDefaults returns c with every zero field set to its default.
func (c Common) WithDefaults() Common {
	if c.Backend == "" {
		c.Backend = Auto
	}
	if c.Brokers == 0 {
		c.Brokers = DefaultBrokers
	}
	if len(c.Modes) == 0 {
		c.Modes = slices.Clone(ctp.Modes)
	}
	if c.TxnAcks == "" {
		c.TxnAcks = "auto"
	}
	if c.OnUnsupported == "" {
		c.OnUnsupported = "fail"
	}
	if c.PendingLock == "" {
		c.PendingLock = DefaultPendingLock
	}
	if c.Consumer == "" {
		c.Consumer = ctp.ConsumerKgo
	}
	if c.MemberTags == "" {
		c.MemberTags = ctp.MemberTagsSend
	}
	if len(c.Clients) == 0 {
		c.Clients = []string{workerset.ClientGo}
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c
}

// Validate checks the shared settings (after WithDefaults); a *UsageError
// names the flag.
func (c Common) Validate() error {
	if !slices.Contains(BackendChoices(), c.Backend) {
		return Usagef("--backend %q: want one of %v", c.Backend, BackendChoices())
	}
	if !slices.Contains(kip1289.Choices(), c.TxnAcks) {
		return Usagef("--txn-acks %q: want one of %s", c.TxnAcks, strings.Join(kip1289.Choices(), ", "))
	}
	switch c.OnUnsupported {
	case "fail", "fallback":
	default:
		return Usagef("--on-unsupported %q: want fail or fallback", c.OnUnsupported)
	}
	switch c.PendingLock {
	case PendingLockExpire, PendingLockHold:
	default:
		return Usagef("--kip1289-pending-lock %q: want expire or hold", c.PendingLock)
	}
	if !slices.Contains(ctp.MemberTagChoices, c.MemberTags) {
		return Usagef("--kip1289-member-tags %q: want send or omit", c.MemberTags)
	}
	if !slices.Contains(ctp.Consumers, c.Consumer) {
		return Usagef("--consumer %q: want one of %v", c.Consumer, ctp.Consumers)
	}
	for i, r := range c.Realizations {
		if _, ok := kip1289.LookupRealization(r); !ok {
			return Usagef("--mode transactional/%s: want transactional/ followed by one of %s", r, strings.Join(kip1289.RealizationNames(), ", "))
		}
		if slices.Contains(c.Realizations[:i], r) {
			return Usagef("--mode transactional/%s: given twice", r)
		}
	}
	for i, m := range c.Modes {
		if !slices.Contains(ctp.Modes, m) {
			return Usagef("--mode %q: want one of %v", m, ctp.Modes)
		}
		if slices.Contains(c.Modes[:i], m) {
			return Usagef("--mode %q: given twice", m)
		}
	}
	if err := c.checkClients(); err != nil {
		return err
	}
	if _, err := c.Remote(); err != nil {
		return err
	}
	if err := checkBackendFlags(c.Backends, c.Backend); err != nil {
		return err
	}
	if c.Brokers < 1 {
		return Usagef("--brokers %d: want a positive number", c.Brokers)
	}
	if _, err := bench.ParseThresholds(c.Thresholds); err != nil {
		return Usagef("--threshold: %v", err)
	}
	if err := c.KIP1289Keys.Validate(); err != nil {
		return Usagef("--kip1289-keys: %v", err)
	}
	return nil
}

// Register registers the shared flags on fs.
func (c *Common) Register(fs *flag.FlagSet, lists *CommonLists) {
	fs.StringVar(&c.Backend, "backend", Auto, "backend: "+backendHelp())
	fs.IntVar(&c.Brokers, "brokers", DefaultBrokers, "brokers in the cluster")
	fs.Var(&lists.Modes, "mode", "ack modes, repeated or comma-separated: transactional, explicit, implicit (default: all three); transactional/native and transactional/ledger run the transactional mode once per realization named")
	fs.StringVar(&c.TxnAcks, "txn-acks", string(kip1289.ChoiceAuto), strings.Join(kip1289.Choices(), " | ")+": how the transactional mode puts acks in the transaction (auto: the first the brokers support)")
	fs.StringVar(&c.OnUnsupported, "on-unsupported", "fail", "fail | fallback: with --txn-acks native on a broker without KIP-1289, fail or run explicit")
	fs.StringVar(&c.PendingLock, "kip1289-pending-lock", DefaultPendingLock, "expire | hold: what a record's lock does while its ack is pending in a transaction, on a broker that speaks KIP-1289 (the embedded reference broker; on docker, an image with KIP-1289 built in, as kip1289.pending.lock) (expire: the KIP as written; hold: re-acquisition blocked until the transaction ends)")
	fs.StringVar(&c.MemberTags, "kip1289-member-tags", ctp.MemberTagsSend, "send | omit: the native realization's TxnShareAcknowledge with the proposed member id and epoch tagged fields, or as KIP-1289 is written, without them (docs/FINDINGS.md 2)")
	fs.StringVar(&c.Consumer, "consumer", ctp.ConsumerKgo, "kgo | sharechaos: the share consumer of the implicit and explicit modes (transactional: native runs on sharechaos, ledger on kgo)")
	fs.Var((*ListFlag)(&c.Clients), "client", workerset.ClientHelp())
	fs.StringVar(&c.WorkerExec, "worker-exec", "", "run the workers on other hosts: a shell command, a template of {{.Host}}, that runs the command appended to it on that host with stdin and stdout connected ('ssh -T {{.Host}}', 'docker exec -i {{.Host}}', 'kubectl exec -i {{.Host}} --'); needs --worker-hosts")
	fs.StringVar(&c.WorkerBinary, "worker-binary", "sharechaos", "with --worker-exec: the sharechaos binary on the worker hosts (the same version as this one)")
	fs.Var((*ListFlag)(&c.WorkerHosts), "worker-hosts", "with --worker-exec: the worker hosts, comma-separated; slot i starts on host i mod n, a slot whose worker dies at start moves to the next")
	fs.Var(&lists.Thresholds, "threshold", "k6-style bound, repeatable: 'txn_commit_duration{mode:transactional}: p(99)<250ms' (a failed one exits 3)")
	fs.Var(&lists.Keys, "kip1289-keys", "API keys of AddShareAcksToTxn,TxnShareAcknowledge (unallocated upstream; default 12890,12891, placeholders)")
	fs.Int64Var(&c.Seed, "seed", 0, "seed of every random choice (default: random, printed; replay a run with its seed)")
	fs.StringVar(&c.Out, "out", "", "run directory (default: a new folder under ./runs/)")
	registerBackendFlags(fs, &c.Backends)
	fs.BoolVar(&c.KeepTopics, "keep-topics", false, "keep each cell's topics, share group and transactional ids (default: a cell deletes what it created)")
}

// Remote is the worker hosts of --worker-exec (nil: workers run here), or a
// usage error naming what is wrong.
func (c Common) Remote() (*workerset.Remote, error) {
	if c.WorkerExec == "" {
		if len(c.WorkerHosts) > 0 {
			return nil, Usagef("--worker-hosts needs --worker-exec (how to run a command on them)")
		}
		return nil, nil
	}
	for _, name := range c.Clients {
		if name != "" && name != workerset.ClientGo {
			return nil, Usagef("--worker-exec runs the go worker on other hosts; --client %s runs here only", name)
		}
	}
	r, err := workerset.NewRemote(c.WorkerExec, c.WorkerBinary, c.WorkerHosts)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	return r, nil
}
