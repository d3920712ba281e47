package embedded

// BrokerCrashNA is the reason a report gives for broker-crash faults
// (broker-kill, share-state-leader-kill, data-leader-kill,
// coordinator-crash-after-endtxn, rolling-restart with kills) being N/A on
// this backend, which therefore does not implement cluster.Processes.
const BrokerCrashNA = "the embedded backend runs the whole cluster as one kfake process, and kfake does not " +
	"recover faithfully from kill -9: share-group progress and group configs are saved only on a " +
	"graceful close, and an open transaction is aborted on recovery without an ABORT marker; " +
	"a broker crash there would test kfake's recovery, not the system under test (run it on the docker backend)"
