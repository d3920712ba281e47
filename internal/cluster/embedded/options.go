package embedded

import (
	"strconv"
	"time"
)

// Options configures an embedded cluster. The zero value is a usable
// 3-broker cluster with the chaos defaults of DefaultBrokerConfigs.
type Options struct {
	// Brokers is the number of kfake brokers (node ids 0..Brokers-1); default 3.
	Brokers int
	// DataDir is kfake's persistence directory. Empty: a temporary
	// directory that Close removes.
	DataDir string
	// LogPath receives the broker child's stderr (kfake's log, panics) and the
	// parent's notes about the child, appended across restarts. Empty:
	// DataDir + ".log" (inside the temporary directory when DataDir is empty).
	LogPath string
	// LogLevel is kfake's log level: none, error, warn, info or debug;
	// default warn.
	LogLevel string
	// SyncWrites fsyncs every produced batch (slower; a graceful stop
	// persists everything anyway).
	SyncWrites bool

	// RecordLock is the share groups' acquisition lock duration, set at
	// broker level because kfake ignores the group-level config; default 15s.
	RecordLock time.Duration
	// DeliveryLimit is the delivery count after which a record is
	// archived; default 10 (kfake's own default is 5).
	DeliveryLimit int
	// TxnMaxTimeout is the longest transaction.timeout.ms a producer may ask
	// for (kfake answers INVALID_TRANSACTION_TIMEOUT above it); default
	// RecordLock, so a producer whose transactions could outlive a record
	// lock fails at InitProducerId instead of silently weakening a run.
	TxnMaxTimeout time.Duration
	// BrokerConfigs are applied last, over the defaults above; an empty
	// value resets a key to kfake's default.
	BrokerConfigs map[string]string

	// StartTimeout bounds Start and RestartGraceful until the cluster
	// answers through the proxies; default 60s.
	StartTimeout time.Duration
	// StopTimeout bounds the graceful stop (SIGTERM, kfake saving its state)
	// before the child is SIGKILLed; default 30s.
	StopTimeout time.Duration

	// Reference starts a reference broker binary (kfake with KIP-1289) in
	// place of the running binary; zero: the running binary. See reference.go.
	Reference Reference
}

// Defaults of Options.
const (
	DefaultBrokers       = 3
	DefaultRecordLock    = 15 * time.Second
	DefaultDeliveryLimit = 10
	DefaultLogLevel      = "warn"
	DefaultStartTimeout  = 60 * time.Second
	DefaultStopTimeout   = 30 * time.Second

	// lockSweepInterval is how often kfake looks for expired acquisition
	// locks; its default of 5s would let a lock outlive its duration by up
	// to 5s and blur every lock-expiry fault.
	lockSweepInterval = 100 * time.Millisecond
)

// Broker config keys the chaos defaults set. kfake honours all of them at
// broker level (they are in its validBrokerConfigs and read by its share-group
// and transaction code).
const (
	ConfigLockSweepInterval = "share.record.lock.sweep.interval.ms"
	ConfigRecordLock        = "group.share.record.lock.duration.ms"
	ConfigDeliveryLimit     = "group.share.delivery.count.limit"
	ConfigTxnMaxTimeout     = "transaction.max.timeout.ms"
)

// DefaultBrokerConfigs gives the chaos broker configs for an acquisition lock
// of the given duration: lock expiry swept every 100ms, a delivery-count
// limit of 10, and transactions no longer than the lock. A report prints
// these; Options.BrokerConfigs may override any of them.
//
// What kfake does not offer: the group-level share.record.lock.duration.ms and
// share.delivery.count.limit are accepted but ignored (hence broker level);
// there is no transaction.abort.timed.out.transaction.cleanup.interval.ms,
// because kfake aborts a timed-out transaction on a timer at its exact
// deadline rather than in a periodic sweep.
func DefaultBrokerConfigs(lock time.Duration) map[string]string {
	return map[string]string{
		ConfigLockSweepInterval: millis(lockSweepInterval),
		ConfigRecordLock:        millis(lock),
		ConfigDeliveryLimit:     strconv.Itoa(DefaultDeliveryLimit),
		ConfigTxnMaxTimeout:     millis(lock),
	}
}

// withDefaults fills every zero field.
func (o Options) withDefaults() Options {
	if o.Brokers <= 0 {
		o.Brokers = DefaultBrokers
	}
	if o.LogLevel == "" {
		o.LogLevel = DefaultLogLevel
	}
	if o.RecordLock <= 0 {
		o.RecordLock = DefaultRecordLock
	}
	if o.DeliveryLimit <= 0 {
		o.DeliveryLimit = DefaultDeliveryLimit
	}
	if o.TxnMaxTimeout <= 0 {
		o.TxnMaxTimeout = o.RecordLock
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
	return o
}

// brokerConfigs is the effective set passed to kfake: the chaos defaults for
// the options' lock, the options' own limits, then the caller's overrides.
func (o Options) brokerConfigs() map[string]string {
	cfgs := DefaultBrokerConfigs(o.RecordLock)
	cfgs[ConfigDeliveryLimit] = strconv.Itoa(o.DeliveryLimit)
	cfgs[ConfigTxnMaxTimeout] = millis(o.TxnMaxTimeout)
	for k, v := range o.BrokerConfigs {
		cfgs[k] = v
	}
	return cfgs
}

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
