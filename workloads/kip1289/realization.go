package kip1289

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Realization is one way the transactional ack mode puts a batch's
// acknowledgements into the output transaction: one entry of Realizations,
// which the worker's factory, the resolver of --txn-acks, the flags'
// validation, the negotiation with the brokers and the checkers' parts that
// apply to broker-settled acks all read. Adding a realization is adding its
// TxnAcker and an entry here.
type Realization struct {
	// Name is how flags, cell names and reports spell it.
	Name string
	// Consumer is the share consumer its loop runs on (ctp.ConsumerKgo,
	// ctp.ConsumerSharechaos).
	Consumer string
	// BrokerSettles: the transaction carries the acks to the broker, which
	// settles them when the transaction ends; the loop sends no
	// non-transactional ack at all (ctp.TxnAcker.LeavesAcksToTxn), and the
	// checks of what a broker does with pending acks apply
	// (redelivered-while-pending, acked-by-non-holder).
	BrokerSettles bool
	// Unavailable says why the brokers' support (Negotiate) does not let it
	// run, nil when it can.
	Unavailable func(Support) error
	// New builds it for one worker; consumer is kgo's share client when
	// Consumer is ctp.ConsumerKgo, nil otherwise.
	New func(ctx context.Context, cfg ctp.WorkerConfig, consumer *kgo.Client) (ctp.TxnAcker, error)
	// ProducerOpts are what the worker's transactional producer needs for
	// it (nil: nothing).
	ProducerOpts func(cfg ctp.WorkerConfig) []kgo.Opt
}

// Realizations lists every realization, the preferred first: --txn-acks auto
// runs the first one the brokers support.
var Realizations = []Realization{
	{Name: RealizationNative, Consumer: ctp.ConsumerSharechaos, BrokerSettles: true,
		Unavailable: nativeUnavailable, New: newNativeAcker, ProducerOpts: nativeProducerOpts},
	{Name: RealizationLedger, Consumer: ctp.ConsumerKgo,
		Unavailable: func(Support) error { return nil }, New: newLedgerAcker},
}

// LookupRealization finds a realization by name.
func LookupRealization(name string) (Realization, bool) {
	i := slices.IndexFunc(Realizations, func(r Realization) bool { return r.Name == name })
	if i < 0 {
		return Realization{}, false
	}
	return Realizations[i], true
}

// RealizationNames are the realizations' names, the preferred first.
func RealizationNames() []string {
	names := make([]string, len(Realizations))
	for i, r := range Realizations {
		names[i] = r.Name
	}
	return names
}

// BrokerSettles reports whether the named realization leaves its acks to
// the broker through the transaction (false for an unknown name and for
// implicit and explicit, whose realization is "").
func BrokerSettles(name string) bool {
	r, ok := LookupRealization(name)
	return ok && r.BrokerSettles
}

// errUnknownRealization is a realization name no entry has.
func errUnknownRealization(name string) error {
	return fmt.Errorf("realization %q: want one of %s", name, strings.Join(RealizationNames(), ", "))
}

// CheckWorker checks what a worker config asks of its realization: a known
// name and the consumer that realization runs on (ctp.WorkerConfig.Validate
// checks the rest). An empty consumer is set to the realization's.
func CheckWorker(cfg *ctp.WorkerConfig) error {
	if cfg.Mode != ctp.Transactional {
		return nil
	}
	r, ok := LookupRealization(cfg.Realization)
	if !ok {
		return fmt.Errorf("check worker config: %w", errUnknownRealization(cfg.Realization))
	}
	if cfg.Consumer == "" {
		cfg.Consumer = r.Consumer
	}
	if cfg.Consumer != r.Consumer {
		return fmt.Errorf("check worker config: consumer %q: the %s realization runs on %q", cfg.Consumer, r.Name, r.Consumer)
	}
	return nil
}

// nativeUnavailable: the brokers must advertise both RPCs, and this client
// must be able to run the native workload.
func nativeUnavailable(s Support) error {
	if !s.Native {
		return &UnsupportedError{Missing: s.Missing}
	}
	return s.Blocked
}

var errNoLedgerTopic = errors.New("ledger realization without a ledger topic")
