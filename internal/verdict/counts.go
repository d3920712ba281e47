package verdict

// Counts are a cell's counts, with the JSON names of CONTRACT.md.
type Counts struct {
	// Input: distinct input ids seeded.
	Input int `json:"input"`
	// Processed: distinct input ids with at least one committed output.
	Processed int `json:"processed"`
	// Duplicated: distinct input ids with two or more committed outputs.
	Duplicated int `json:"duplicated"`
	// ExtraOutputs: committed outputs beyond the first per id.
	ExtraOutputs int `json:"extra_outputs"`
	// Lost: ids with no committed output that the share group is done with.
	Lost int `json:"lost"`
	// Archived: the part of Lost the broker archived at the delivery limit.
	Archived int `json:"archived"`
	// Unseen: ids with no committed output the group was not done with at the
	// end of the drain (liveness, not safety).
	Unseen int `json:"unseen"`
	// AbortedReads: committed-visible outputs of a transaction its worker saw aborted.
	AbortedReads int `json:"aborted_reads"`
	// TornTxns: transactions with only part of their output visible.
	TornTxns int `json:"torn_txns"`
	// Phantoms: outputs whose key is no input id.
	Phantoms int `json:"phantoms"`
}

// Allowable are the anomalies a scenario may allow a mode (a row's
// expectations, a scenario file's "allowed"); every other anomaly below is
// allowed nowhere by construction (ORACLE.md).
var Allowable = []string{
	AnomalyLost, AnomalyDuplicate, AnomalyAckWithoutOutput, AnomalyArchived,
	AnomalyAbortedRead, AnomalyTornTransaction, AnomalyPhantomOutput, AnomalyRedeliveredWhilePending,
}

// Anomaly names (ORACLE.md, "Anomalies the checker names").
const (
	AnomalyLost                    = "lost"
	AnomalyArchived                = "archived"
	AnomalyDuplicate               = "duplicate"
	AnomalyAbortedRead             = "aborted-read"
	AnomalyTornTransaction         = "torn-transaction"
	AnomalyAckWithoutOutput        = "ack-without-output"
	AnomalyPhantomOutput           = "phantom-output"
	AnomalyRedeliveredWhilePending = "redelivered-while-pending"
	AnomalyUnseen                  = "unseen"

	// AnomalyDuplicateInOneDelivery: two committed outputs of one input from
	// one delivery of it (one transaction wrote it twice, or one poll's
	// record was committed in two transactions). Redelivery cannot produce
	// it, so no mode allows it; "duplicate" is the redelivered kind.
	AnomalyDuplicateInOneDelivery = "duplicate-in-one-delivery"
	// AnomalyDuplicateUnexplained: committed outputs from different
	// deliveries, but the history shows no reason the first delivery's ack
	// did not take (it was ACCEPTed ok, no crash, fence, release or unknown
	// outcome). Allowed nowhere.
	AnomalyDuplicateUnexplained = "duplicate-unexplained"
	// AnomalyDuplicateNeverAcked: committed outputs from different
	// deliveries, where the first delivery's transaction committed and its
	// worker went on with its loop without ever acknowledging the record
	// (explicit and ledger: no ack invoked after the commit; implicit: no
	// poll after it; native: no ack inside the committed transaction).
	// Nothing released the record: the loop forgot its ack. Allowed nowhere.
	AnomalyDuplicateNeverAcked = "duplicate-never-acked"
	// AnomalyLostAfterCommit: lost although a transaction that held it
	// committed. Allowed nowhere: implicit loses records only after an abort.
	AnomalyLostAfterCommit = "lost-after-commit"
	// AnomalyLostUnexplained: lost, and the history shows no aborted or
	// unfinished transaction of it followed by an accept. Allowed nowhere.
	AnomalyLostUnexplained = "lost-unexplained"
	// AnomalyZombieCommit: a worker incarnation committed a transaction it
	// began committing after the next incarnation of its slot started: the
	// replacement's InitProducerId must have fenced it. Allowed nowhere.
	AnomalyZombieCommit = "zombie-commit"
	// AnomalyZombieAcks: a worker incarnation's acks into its transaction
	// (txn-acks) were accepted although it sent them after the next
	// incarnation of its slot started: the replacement's InitProducerId
	// bumped the producer epoch, and AddShareAcksToTxn, TxnShareAcknowledge
	// (or the ledger's produce) must refuse the old one. Allowed nowhere.
	AnomalyZombieAcks = "zombie-acks"
	// AnomalyHangingTransaction: an output partition's last stable offset
	// stayed below its end long after every transaction of the cell should
	// have ended (ctp.HangingError): a transaction the broker neither
	// committed nor aborted, so the outputs past it cannot be read committed.
	// Allowed nowhere.
	AnomalyHangingTransaction = "hanging-transaction"
	// AnomalyAckedByNonHolder: a transaction that committed carried the ack
	// of a record another worker had acquired again before the ack was sent
	// (native realization): the broker accepted an ack from a member that no
	// longer held the record, as TxnShareAcknowledge without a member id
	// allows (docs/FINDINGS.md 2). Allowed nowhere.
	AnomalyAckedByNonHolder = "acked-by-non-holder"
	// AnomalyRedeliveredWhileRenewed: a record another worker acquired while
	// the broker had confirmed a RENEW of its lock to the worker that held
	// it (KIP-1222), within the lock that renewal started and before that
	// worker let the record go. Allowed nowhere.
	AnomalyRedeliveredWhileRenewed = "redelivered-while-renewed"
	// AnomalyRedeliveredAfterAck: the broker handed a record out again, as
	// a delivery no later than the one it had confirmed acknowledged (an
	// ACCEPT answered ok; native, the ack inside a committed transaction):
	// the share-partition state a leader loaded had lost the
	// acknowledgement (Jepsen's lost acknowledged write; apache/kafka
	// #23074's stale state write). Judged apart from the duplicates it may
	// cause, so that explicit mode (which allows duplicates) and the
	// ledger (which skips the record) still show it. Allowed nowhere.
	AnomalyRedeliveredAfterAck = "redelivered-after-ack"
	// AnomalyShareOffsetsRegressed: consecutive reads of an input
	// partition's share offsets (DescribeShareGroupOffsets, the share
	// coordinator's stored state) went back: the start offset fell, or at
	// one start offset the lag rose by more than the input added (the
	// delivery-complete count fell). Nothing in a run resets a group, and
	// acknowledgements only complete records (Jepsen's nonmonotonic read of
	// the group's progress; apache/kafka #23074 and #23112). Allowed
	// nowhere.
	AnomalyShareOffsetsRegressed = "share-offsets-regressed"
	// The dead-letter queue (KIP-1191), judged where the group has one:
	// every input the broker archived is in the dead-letter topic exactly
	// once. AnomalyDLQMissing: an archived input that is not there;
	// AnomalyDLQExtra: a dead letter for an input that was not archived (or
	// names no input); AnomalyDLQDuplicate: an input there twice or more.
	// Allowed nowhere.
	AnomalyDLQMissing   = "dlq-missing"
	AnomalyDLQExtra     = "dlq-extra"
	AnomalyDLQDuplicate = "dlq-duplicate"
	// AnomalyLostNotPoison: in a row whose poison records may be lost into
	// the dead-letter queue, an input that was not poison and has no
	// output. Allowed nowhere.
	AnomalyLostNotPoison = "lost-not-poison"
)

// Found is one anomaly kind seen in a cell: how often, and a few minimal examples.
type Found struct {
	Count int `json:"count"`
	// Causes counts the instances by the mechanism the history shows for
	// them (a duplicate after a crash after the commit, after a fenced
	// zombie, ...); empty where the anomaly has a single mechanism.
	Causes   map[string]int `json:"causes,omitempty"`
	Examples []Example      `json:"examples,omitempty"`
}

// Example is a minimal account of one anomalous record: the record, the workers
// and transactions that touched it, with times, and the fault active then.
type Example struct {
	Record string `json:"record"`
	// Summary is one sentence a person reads first.
	Summary string `json:"summary"`
	// Steps are the events that matter, oldest first, each "time worker f txn: what".
	Steps []string `json:"steps,omitempty"`
	Fault string   `json:"fault,omitempty"`
	// Cause names the mechanism behind this instance, one of the anomaly's
	// Causes; empty where the anomaly has a single mechanism.
	Cause string `json:"cause,omitempty"`
}

// MaxExamples bounds the examples kept per anomaly.
const MaxExamples = 3
