package ctp

import (
	"errors"
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
)

// WorkerConfig is everything one worker process needs; the orchestrator hands
// it over as JSON.
type WorkerConfig struct {
	Bootstrap       []string `json:"bootstrap"`
	Group           string   `json:"group"`
	InputTopic      string   `json:"input_topic"`
	OutputTopic     string   `json:"output_topic"`
	LedgerTopic     string   `json:"ledger_topic,omitempty"`
	TransactionalID string   `json:"transactional_id"`
	Mode            AckMode  `json:"mode"`
	// Realization of the transactional mode: "ledger" or "native".
	Realization string `json:"realization,omitempty"`
	// Consumer is the share consumer: "kgo" or "sharechaos" (default: ours
	// for the native realization, which needs it, else kgo's).
	Consumer string `json:"consumer,omitempty"`
	// AddShareAcksToTxnKey and TxnShareAcknowledgeKey are the API keys of
	// KIP-1289's RPCs (native realization); 0: the defaults.
	AddShareAcksToTxnKey   int16  `json:"add_share_acks_to_txn_key,omitempty"`
	TxnShareAcknowledgeKey int16  `json:"txn_share_acknowledge_key,omitempty"`
	Slot                   int    `json:"slot"`
	Incarnation            int    `json:"incarnation"`
	HistoryPath            string `json:"history_path"`
	// MaxRecords bounds one poll (one fetch per poll: kgo ShareMaxRecordsStrict).
	MaxRecords int32 `json:"max_records"`
	// TxnTimeout is transaction.timeout.ms: shorter than the acquisition lock.
	TxnTimeout Duration `json:"txn_timeout"`
	// DeliveryTimeout bounds a produce, so a broken link surfaces as an error
	// instead of being retried forever (ENVIRONMENT.md).
	DeliveryTimeout Duration `json:"delivery_timeout"`
	// RequestTimeout bounds each step the loop waits on (commit, flush, acks).
	RequestTimeout Duration `json:"request_timeout"`
	Arm            Arm      `json:"arm,omitempty"`
	// Client is how to reach the cluster beyond the bootstrap (TLS, SASL);
	// its password never goes into the file (clientcfg.EnvPassword).
	Client clientcfg.Config `json:"client,omitempty"`

	// MemberTags is send or omit (MemberTagsSend, MemberTagsOmit; "" is
	// send): whether TxnShareAcknowledge carries the proposed member id and
	// epoch tagged fields (native realization).
	MemberTags string `json:"member_tags,omitempty"`

	// Renew, when set, makes the worker renew the acquisition locks of a
	// batch it holds past its processing (a stall), KIP-1222's RENEW.
	Renew *Renew `json:"renew,omitempty"`
	// Poison, when set, names the input records the worker cannot process:
	// it RELEASEs them without output (poison.go), until the broker
	// archives them.
	Poison *Poison `json:"poison,omitempty"`

	// Stepped makes a worker process run one step per "step" line on its
	// stdin and answer each with its StepResult as a JSON line on stdout
	// (SteppedAnswer), so the bench's driver paces a worker that is not
	// this binary (the Java worker) as it paces its in-process Go workers.
	// The Go worker process refuses it: the bench steps Go workers in
	// process (Worker.Step).
	Stepped bool `json:"stepped,omitempty"`
}

// Name is the worker's slot.incarnation.
func (c WorkerConfig) Name() string { return WorkerName(c.Slot, c.Incarnation) }

// Validate names the first missing or wrong field.
func (c WorkerConfig) Validate() error {
	var errs []error
	if len(c.Bootstrap) == 0 {
		errs = append(errs, errors.New("bootstrap is empty"))
	}
	for name, v := range map[string]string{
		"group": c.Group, "input_topic": c.InputTopic, "output_topic": c.OutputTopic,
		"transactional_id": c.TransactionalID, "history_path": c.HistoryPath,
	} {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is empty", name))
		}
	}
	switch c.Mode {
	case Implicit, Explicit:
	case Transactional:
		// Which realizations exist and the consumer each runs on is the
		// realizations' table's to check (Deps.CheckConfig).
		if c.Realization == "" {
			errs = append(errs, errors.New("realization is empty in transactional mode"))
		}
	default:
		errs = append(errs, fmt.Errorf("mode %q: want implicit, explicit or transactional", c.Mode))
	}
	if c.Consumer != ConsumerKgo && c.Consumer != ConsumerSharechaos {
		errs = append(errs, fmt.Errorf("consumer %q: want kgo or sharechaos", c.Consumer))
	}
	if err := validMemberTags(c.MemberTags); err != nil {
		errs = append(errs, err)
	}
	if c.MaxRecords <= 0 {
		errs = append(errs, fmt.Errorf("max_records %d: want > 0", c.MaxRecords))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("validate worker config: %w", err)
	}
	return nil
}

// Realizations of the transactional mode, by name (the vocabulary reports
// and flags share; what each is and needs is workloads/kip1289's table).
const (
	RealizationLedger = "ledger"
	RealizationNative = "native"
)

func (c *WorkerConfig) defaults() {
	if c.Consumer == "" {
		c.Consumer = ConsumerKgo
	}
	if c.TxnTimeout == 0 {
		c.TxnTimeout = Duration(10 * time.Second)
	}
	if c.DeliveryTimeout == 0 {
		c.DeliveryTimeout = Duration(20 * time.Second)
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = Duration(30 * time.Second)
	}
}
