package scenarios

import (
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// catalog is every scenario, in report order. It is filled by init because
// random-schedule's menu is derived from the catalog's own rows.
var catalog []Scenario

func init() { catalog = rows() }

// stallPastLock holds a transaction past the acquisition lock, so the records
// come back while it is open.
func stallPastLock(lock time.Duration) time.Duration { return lock + 3*time.Second }

// sharedPartition is the load of the rows whose records must be acquired by
// a second worker while the first holds them: one input partition, so that
// every worker is assigned it (a partition goes to ceil(members/partitions)
// members).
var sharedPartition = Load{Partitions: 1}

// The shapes rows need (Scenario.Requires), each with what the row does
// with it. Rows not named need nothing: a crashed or frozen worker's
// replacement is the next incarnation of its own slot, so one worker slot
// runs every worker fault but the races.
var (
	// secondWorker: the lock-expiry rows race the armed worker against
	// another for its records (and the stale-acks row's follower is that
	// other worker).
	secondWorker = ShapeNeed{Shape: Shape{Workers: 2},
		Why: "another worker must be there to acquire the records while the armed one holds them"}
	// partialProduce: case 7 fails the produce to one output partition's
	// leader only, so a batch must also have outputs on a partition another
	// broker leads (and so more than one record).
	partialProduce = ShapeNeed{Shape: Shape{Partitions: 2, Batch: 2, Brokers: 2},
		Why: "a partial produce failure needs a batch with outputs on another output partition, led by another broker than the cut one"}
	// failover: the fault moves leadership off the broker it strikes (or
	// moves leaders off it first), which needs another broker to take it.
	failover = ShapeNeed{Shape: Shape{Brokers: 2},
		Why: "the fault moves leadership to another broker"}
	// mixOfFailovers: random-schedule draws from the failover rows.
	mixOfFailovers = ShapeNeed{Shape: Shape{Brokers: 2},
		Why: "its mix draws from the faults that move leadership to another broker"}
)

// outlastStall is a transaction timeout longer than stallPastLock, so that
// the stalled transaction can still commit after its records' locks ended.
func outlastStall(lock time.Duration) time.Duration { return stallPastLock(lock) + lock }

// timeoutForMoves is stranded-txn-leader-move's transaction timeout: most of
// the lock, and at least 12 s, so that the stranded transaction (found 7 s
// after it began) is still open when its leaders finished moving.
func timeoutForMoves(lock time.Duration) time.Duration { return max(lock*9/10, 12*time.Second) }

// underLoad is a cluster fault that acts once fraction of the input is done.
// staleWriteRecords is the load of the stale-write rows: their faults wait
// for particular state writes and the persister's resend (seconds each,
// up to six attempts), all while the load lasts; 3000 drained first in
// some CI runs (UNKNOWN "never fired").
const staleWriteRecords = 4000

func underLoad(fraction float64, m faults.Mechanism) *ClusterFault {
	return &ClusterFault{Mechanism: m, AfterLoad: fraction}
}

func rows() []Scenario {
	return []Scenario{
		// Not in ORACLE.md's tables: no fault at all, so every mode must show
		// nothing (implicit loses only after an abort, and nothing aborts).
		{Name: "steady", Case: "baseline", About: "no fault: the baseline every mode must pass with nothing lost or duplicated",
			Expect: exactlyOnceElse(nothing, nothing), SpansPartitions: true, SharesARequest: true},
		// No fault either: one worker on 8 partitions holds several
		// share-partitions of each broker at once (more partitions than
		// brokers), so the native sender's TxnShareAcknowledge, one per
		// broker, carries acks of several share-partitions: a broker that
		// staged only the first would pass every other row's default shape
		// (4 partitions, 3 workers: a transaction's share-partitions had
		// different leaders) and fail here.
		{Name: "acks-of-one-broker-in-one-request", Case: "beyond", About: "no fault, 8 partitions and one worker: a transaction's acks of several share-partitions of one broker travel in one TxnShareAcknowledge, and every one must settle",
			Expect: exactlyOnceElse(nothing, nothing), Load: Load{Workers: 1, Partitions: 8}, SpansPartitions: true, SharesARequest: true},

		// Case 1: "no output; records released at once and reprocessed; no
		// loss, no dup" in every mode ("same"); implicit: see
		// implicitCrashDuplicates (ORACLE.md corrected).
		{Name: "crash-before-begin", Case: "1", About: "the armed worker SIGKILLs itself after a poll, before beginTransaction",
			Worker:   &WorkerFault{Point: ctp.PointBeforeBegin, Action: ctp.ActionKill},
			Expect:   exactlyOnceElse(nothing, implicitCrashDuplicates),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeBegin)), redelivered}},

		// Case 2: "txn aborted ...; output never visible (no aborted read);
		// reprocessed; no loss, no dup" in every mode ("same").
		{Name: "crash-after-send", Case: "2", About: "SIGKILL after the outputs were sent and flushed, before acks and commit (the replacement reuses the transactional id)",
			Worker:   &WorkerFault{Point: ctp.PointAfterSend, Action: ctp.ActionKill},
			Expect:   exactlyOnceElse(nothing, implicitCrashDuplicates),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterSend)), redelivered}},
		// Case 2, "a variant with a fresh id exercises the path where only the
		// transaction timeout ends the old transaction": the same guarantees.
		{Name: "crash-after-send-fresh-id", Case: "2 (fresh transactional id)", About: "as crash-after-send, but the replacement gets a new transactional id: only the transaction timeout ends the old one",
			Worker:   &WorkerFault{Point: ctp.PointAfterSend, Action: ctp.ActionKill, FreshID: true},
			Expect:   exactlyOnceElse(nothing, implicitCrashDuplicates),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterSend)), redelivered}},

		// Beyond the KIP's list: a rolling deploy of the CTP app. A graceful
		// stop mid-transaction must abort the open transaction (its output
		// stays invisible to read_committed) and give the batch back
		// (explicit: RELEASE; implicit and transactional: whatever closing
		// the share consumer does), so every mode must show nothing: a
		// client whose close accepts the last polled batch would lose it,
		// the one thing this row exists to find out (FINDINGS.md 17).
		{Name: "graceful-stop-mid-txn", Case: "beyond", About: "SIGTERM after the outputs were sent and flushed, before acks and commit: the worker aborts, gives its batch back, closes and exits (a rolling deploy); the replacement reuses the transactional id",
			Worker:   &WorkerFault{Point: ctp.PointAfterSend, Action: ctp.ActionTerm},
			Expect:   exactlyOnceElse(nothing, nothing),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterSend)), abortedOnStop, redelivered}},

		// Case 3: "pending acks discarded with the abort; reprocessed; no
		// loss, no dup"; explicit and implicit: "n/a" (no acks in their
		// transactions).
		{Name: "crash-after-acks", Case: "3", About: "SIGKILL after the acks went into the transaction, before commit (the case KIP-1289 exists for)",
			Worker:   &WorkerFault{Point: ctp.PointAfterAcks, Action: ctp.ActionKill},
			Expect:   exactlyOnceElse(noTxnAcksFor("crash-after-acks"), noTxnAcksFor("crash-after-acks")),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterAcks)), redelivered}, SpansPartitions: true},

		// Case 4b: transactional "no dup (the acks were in the txn)"; explicit
		// "duplicates expected: the window KIP-1289 closes; counted, allowed";
		// implicit "duplicates, like explicit".
		{Name: "crash-after-commit", Case: "4b", About: "SIGKILL right after commitTransaction returned, before any non-transactional ack",
			Worker:   &WorkerFault{Point: ctp.PointAfterCommit, Action: ctp.ActionKill},
			Expect:   exactlyOnceElse(allow(verdict.AnomalyDuplicate, whyAfterCommit), allow(verdict.AnomalyDuplicate, whyAfterCommit)),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterCommit))}},

		// Case 5: transactional "no loss, no dup"; explicit "no loss; dup
		// allowed"; implicit "loss possible if A's next poll accepts the
		// aborted batch" (and A's committed batches can come back: dup, as
		// explicit).
		// The zombie freezes before its commit (in transactional mode after
		// its acks and validation), so that once resumed it goes straight to
		// the commit the KIP says must be fenced; frozen after the send, a
		// transactional zombie would fail adding its acks instead and never
		// try to commit.
		{Name: "zombie-fenced", Case: "5", About: "a worker SIGSTOPs mid-transaction before its commit, a replacement with its transactional id initializes, the zombie is resumed and its commit is fenced",
			Worker:   &WorkerFault{Point: ctp.PointBeforeCommit, Action: ctp.ActionStop, Conduct: faults.Zombie},
			Expect:   exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeCommit)), replacementReady, zombieFenced}},

		// Case 5, the stale-epoch half: frozen before its acks, the zombie's
		// first act after its resume is AddShareAcksToTxn (native) or its
		// ledger entries (ledger), sent with the producer epoch its
		// replacement's InitProducerId fenced. A broker that forgets the
		// epoch check on the acks passes zombie-fenced, whose zombie goes
		// straight to its commit; here its acks must be refused. Explicit
		// and implicit have no acks in the transaction: N/A, as case 3.
		{Name: "zombie-fenced-before-acks", Case: "5 (stale epoch on the acks)", About: "a worker SIGSTOPs after its send, before its acks; a replacement with its transactional id initializes; the resumed zombie's acks into the transaction are refused as fenced",
			Worker:   &WorkerFault{Point: ctp.PointAfterSend, Action: ctp.ActionStop, Conduct: faults.Zombie},
			Expect:   exactlyOnceElse(noTxnAcksFor("zombie-fenced-before-acks"), noTxnAcksFor("zombie-fenced-before-acks")),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterSend)), replacementReady, zombieAcksFenced}},

		// Case 6: transactional "no loss, no dup"; explicit "records RELEASEd
		// and reprocessed; no loss"; implicit "the next poll accepts the
		// aborted batch: loss expected, counted, allowed".
		{Name: "explicit-abort", Case: "6", About: "one batch fails validation once and the worker aborts its transaction",
			Worker:   &WorkerFault{Point: ctp.PointBeforeCommit, Action: ctp.ActionAbort},
			Expect:   exactlyOnceElse(nothing, lossAfterAbort),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeCommit)), armedAborted}},

		// Case 7: transactional "no loss, no dup"; explicit "no loss";
		// implicit "loss expected, as in 6".
		{Name: "partial-produce-failure", Case: "7", About: "one worker's link to one output leader is cut, its produce fails, it aborts",
			Worker:   &WorkerFault{Point: ctp.PointBeforeSend, Action: ctp.ActionFailProduce, DeliveryTimeout: 5 * time.Second},
			Expect:   exactlyOnceElse(nothing, lossAfterAbort),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeSend)), produceFailed},
			Requires: partialProduce},

		// "Beyond the KIP's list": these release acquisitions early, so
		// transactional must stay exactly-once while explicit and implicit
		// show at-least-once duplicates. Implicit: "loss only after an abort".

		// Transactional "no dup, no loss" (native: a redelivery while the acks
		// are pending is the ANOMALY redelivered-while-pending, never
		// allowed); explicit "dup allowed"; implicit "dup allowed; loss if
		// the stalled worker's next poll accepts an aborted batch".
		{Name: "lock-expiry-during-txn", Case: "beyond", Load: sharedPartition, About: "a transaction held open past the acquisition lock, connection up",
			Worker:   &WorkerFault{Point: ctp.PointBeforeCommit, Action: ctp.ActionStall, Stall: stallPastLock},
			Expect:   exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeCommit)), secondAcquisition(false)},
			Requires: secondWorker},

		// The race lock-expiry-during-txn cannot provoke (its stall outlives
		// the transaction timeout, so the held transaction can only abort):
		// the armed worker holds its polled batch past the lock before
		// beginTransaction, another worker acquires the records meanwhile,
		// and the first then processes them in a transaction that can still
		// commit. Transactional (ledger): exactly once, kept by the ledger's
		// validation (the later writer finds the earlier committed entry and
		// aborts; ARCHITECTURE.md ledger step 4); native: by the broker, which
		// must refuse the first worker's acks for records it no longer holds.
		// Explicit: the first worker's ACCEPT after its commit fails (its
		// acquisition is gone): a duplicate, at-least-once. Implicit: its next
		// poll's acks fail the same way: a duplicate. The name is this
		// branch's; a native-realization row is lock-expiry-before-commit.
		// One input partition: the share assignor gives a partition to
		// ceil(members/partitions) members (kfake and Kafka's simple
		// assignor alike), so with the run's default 4 partitions and 3
		// workers the held records' partition has no other member and
		// nobody can acquire them while they are held.
		{Name: "lock-expiry-race", Case: "beyond", Load: sharedPartition, About: "a polled batch held past its lock before beginTransaction, then processed and committed while another worker holds the records",
			Worker: &WorkerFault{Point: ctp.PointBeforeBegin, Action: ctp.ActionStall, Stall: stallPastLock},
			Expect: map[ctp.AckMode]Expectation{
				ctp.Transactional: {KeptBy: "the ledger's validation (ARCHITECTURE.md ledger step 4): the later transaction finds the records' committed entries and aborts"},
				ctp.Explicit:      duplicates, ctp.Implicit: duplicates},
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeBegin)), secondAcquisition(true)},
			Requires: secondWorker},
		// lock-expiry-race's first worker sends its acks after the second
		// has processed and committed the records, so a broker refuses them
		// for their state alone and never has to ask who sends them. Here
		// the worker that re-acquires the records holds them in turn
		// (ctp.ActionStallOverlap; Arm.Follower derives the hold), so the
		// first worker's acks arrive while another member holds its records:
		// the moment TxnShareAcknowledge's proposed member tags exist for
		// (docs/FINDINGS.md 2). Transactional: exactly once; ledger, kept by
		// the ledger's validation (the held worker finds the first's
		// committed entries and aborts); native, by the broker refusing the
		// acks of a member that no longer holds the records, which it can
		// do only when TxnShareAcknowledge names the member: with
		// --kip1289-member-tags omit (the KIP as written) the first worker's
		// acks are accepted and commit, ANOMALY acked-by-non-holder, allowed
		// nowhere. Explicit and implicit: as lock-expiry-race, the first
		// worker's ACCEPT fails (another member holds the records) and the
		// holder processes them again: a duplicate.
		{Name: "lock-expiry-stale-acks", Case: "beyond", Load: sharedPartition, About: "a polled batch held past its lock before beginTransaction while the worker that re-acquires it holds it too, so the first worker's acks arrive while another member holds the records",
			Worker: &WorkerFault{Point: ctp.PointBeforeBegin, Action: ctp.ActionStallOverlap, Stall: stallPastLock},
			Expect: map[ctp.AckMode]Expectation{
				ctp.Transactional: {KeptBy: "the ledger's validation (ARCHITECTURE.md ledger step 4): the held worker's transaction finds the records' committed entries and aborts"},
				ctp.Explicit:      duplicates, ctp.Implicit: duplicates},
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeBegin)), secondAcquisition(true), heldAcrossAcks},
			Requires: secondWorker},
		// KIP-1222: the worker renews the locks of the batch it holds past
		// the lock (every third of it) in a transaction that outlasts the
		// stall. The broker keeps the records the worker's: nobody else
		// acquires them (a second acquisition within a confirmed renewal is
		// redelivered-while-renewed, allowed nowhere), the commit and the
		// ACCEPT after it succeed, so no mode duplicates: the hazard of
		// lock-expiry-during-txn, closed. Kafka 4.2 has RENEW (ShareAcknowledge
		// v2); 4.3 adds share.renew.acknowledge.enable (default true).
		{Name: "lock-expiry-renewed", Case: "beyond", Load: sharedPartition, About: "a transaction held open past the acquisition lock while the worker renews the batch's locks (KIP-1222 RENEW)",
			Worker:   &WorkerFault{Point: ctp.PointBeforeCommit, Action: ctp.ActionStall, Stall: stallPastLock, TxnTimeout: outlastStall, Renew: true},
			Expect:   exactlyOnceElse(nothing, nothing),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeCommit)), renewedPastLock},
			Requires: secondWorker, NotIn: renewNotNative},
		// The same worker on a group with share.renew.acknowledge.enable=false
		// (KIP-1240, Kafka 4.3+): the broker refuses every renewal
		// (INVALID_RECORD_STATE, "Renewing acquisition locks is not enabled
		// for the group."), the lock ends, another worker acquires the
		// records: lock-expiry-before-commit's hazard (explicit: the ACCEPT
		// after the commit fails, a duplicate). On 4.2 the config does not
		// exist: N/A naming it.
		{Name: "lock-expiry-renew-disabled", Case: "beyond", Load: sharedPartition, About: "lock-expiry-renewed on a group whose share.renew.acknowledge.enable is false: the broker refuses RENEW",
			Worker:   &WorkerFault{Point: ctp.PointBeforeCommit, Action: ctp.ActionStall, Stall: stallPastLock, TxnTimeout: outlastStall, Renew: true},
			Expect:   exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeCommit)), renewRefused},
			Requires: secondWorker, NotIn: renewNotNative,
			GroupConfigs: map[string]string{"share.renew.acknowledge.enable": "false"}},
		// KIP-1191 (Kafka 4.4, share.version 2): a share group with a
		// dead-letter topic. One input in a hundred is poison: the workers
		// RELEASE it every time, the broker archives it at the delivery
		// limit and writes it to the dead-letter topic, with its key copied
		// and Kafka's headers naming its partition and offset. Every
		// archived input must be there exactly once, and nothing but poison
		// may be lost. Implicit cannot refuse a record (the next poll
		// accepts it); the native realization never acks outside its
		// transaction.
		{Name: "dlq-poison", Case: "beyond", About: "poison records released until the delivery limit archives them into the group's dead-letter topic (KIP-1191): each there exactly once",
			Expect: map[ctp.AckMode]Expectation{ctp.Transactional: poisonIntoDLQ, ctp.Explicit: poisonIntoDLQ,
				ctp.Implicit: {NotApplicable: "implicit acks accept every polled record on the next poll: a worker cannot refuse a poison record"}},
			Evidence: []Evidence{deadLettered},
			NotIn:    map[string]string{ctp.RealizationNative: "the native realization never acks outside its transaction: it cannot RELEASE a poison record on its own"},
			Features: map[string]int16{"share.version": 2}, PoisonEvery: 100, DLQ: true},
		// lock-expiry-during-txn's transaction times out before the lock ends,
		// so it can only abort. Here the transaction timeout outlasts the
		// stall: the worker holds its acks pending past the lock, then
		// commits. Under the reference broker's `expire` (the KIP as written)
		// another worker acquires the records meanwhile and processes them
		// too (redelivered-while-pending, duplicate); under `hold` it cannot,
		// so a hold cell's evidence is the hold itself: the lock ran out while
		// the acks were pending, and nobody else got the records before the
		// transaction ended. The ledger has no lock of its own to hold either;
		// explicit and implicit are as lock-expiry-during-txn.
		{Name: "lock-expiry-before-commit", Case: "beyond", Load: sharedPartition, About: "acks pending in a transaction past the acquisition lock, then the commit (transaction timeout longer than the lock)",
			Worker:   &WorkerFault{Point: ctp.PointBeforeCommit, Action: ctp.ActionStall, Stall: stallPastLock, TxnTimeout: outlastStall},
			Expect:   exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(string(ctp.PointBeforeCommit)), secondAcquisition(false)},
			Requires: secondWorker,
			EvidenceUnder: map[string][]Evidence{
				PendingLockHold: {firedAt(string(ctp.PointBeforeCommit)), pendingPastLock, heldFromOthers}},
			// Seen on Kafka 4.2.2 (nightly, seed 20261201): every other
			// worker waited in validate for the stalled transaction, 18 s,
			// and the records came back only to the stalled worker itself.
			NotIn: map[string]string{ctp.RealizationLedger: "the ledger realization cannot have this race: the stall comes after the transaction's ledger entry, and every other worker's validation reads the ledger read_committed past it, so all of them wait for the stalled transaction to end instead of polling; no second acquisition can happen while it is open (the native realization on the reference broker runs this case)"}},

		// "no loss, no dup" / "no loss; dup allowed" / "dup allowed; loss only after an abort".
		{Name: "broker-kill", Case: "beyond", About: "SIGKILL a random broker under load, restart it",
			Cluster: underLoad(0.2, faults.BrokerKill), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true},

		// Case 4: transactional "exactly once"; explicit "dup only if the ack
		// was lost with the crash"; implicit "like explicit". Implicit also
		// loses after an abort: a worker whose own transaction times out
		// during the coordinator's failover aborts, and its next poll accepts
		// the batch (seen on Kafka 4.2.2; ORACLE.md's "like explicit" holds
		// only for the worker whose commit was held).
		{Name: "coordinator-crash-after-endtxn", Case: "4", About: "EndTxn answered, WriteTxnMarkers held by the Kafka-aware toxic, the coordinator's broker killed and restarted",
			Cluster: &ClusterFault{Mechanism: faults.CoordinatorCrashAfterEndTxn}, Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(faults.PointAfterEndTxn), healed},
			Requires: failover, SpansPartitions: true},

		// "no loss, no dup" / "no loss; dup allowed" / "as broker-kill".
		{Name: "share-state-leader-kill", Case: "beyond", About: "SIGKILL the leader of the __share_group_state partition that holds an input partition's state",
			Cluster: underLoad(0.2, faults.ShareStateLeaderKill), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		{Name: "data-leader-kill", Case: "beyond", About: "SIGKILL the leader of an input or output partition",
			Cluster: underLoad(0.2, faults.DataLeaderKill), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		// data-leader-kill with the pending window made certain: where the
		// broker settles the acks they are pending at the input
		// partition's leader from TxnShareAcknowledge to the COMMIT
		// marker; holding the marker keeps them there while the leader
		// dies. Expectations as data-leader-kill (for explicit and the
		// ledger the held markers are an output's).
		{Name: "data-leader-kill-after-endtxn", Case: "beyond (4 at the share-partition leader)", About: "EndTxn answered, WriteTxnMarkers to an input partition's leader held by the Kafka-aware toxic, that leader killed and restarted: its pending acks must settle exactly once",
			Cluster: &ClusterFault{Mechanism: faults.DataLeaderKillAfterEndTxn}, Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(faults.PointMarkersHeldAtLeader), healed}, SettledEvidence: []Evidence{acksPendingAtKilledLeader},
			Requires: failover},
		// The transaction times out on the coordinator while its acks'
		// leader moves: the worker dies after its acks and its replacement
		// takes a fresh transactional id, so only the coordinator's timeout
		// ends the transaction; meanwhile the leaders its acks are staged at
		// (native: the input partitions; the ledger: its partition) move to
		// other brokers, and the timeout's ABORT markers must release the
		// acks there, restored as pending. Transactional: no loss, no dup;
		// explicit and implicit have no acks in their transactions (n/a, as
		// case 3). The transaction timeout leaves the moves time (12 s at
		// least; a live transaction is stranded after 7 s).
		{Name: "stranded-txn-leader-move", Case: "3 (fresh id) + leader move", About: "SIGKILL after the acks went into the transaction, the replacement on a fresh transactional id; while only the coordinator's timeout can end the transaction, the leaders its acks are staged at move to other brokers",
			Worker:   &WorkerFault{Point: ctp.PointAfterAcks, Action: ctp.ActionKill, FreshID: true, TxnTimeout: timeoutForMoves},
			Cluster:  &ClusterFault{Mechanism: faults.StrandedTxnLeaderMove},
			Expect:   exactlyOnceElse(noTxnAcksFor("stranded-txn-leader-move"), noTxnAcksFor("stranded-txn-leader-move")),
			Evidence: []Evidence{firedAt(string(ctp.PointAfterAcks)), firedAt(faults.PointStrandedTxnMoved), healed, redelivered},
			Requires: failover},
		// "no loss, no dup" / "no loss; dup allowed" / "as broker-kill": a
		// leadership move with every broker up releases what was acquired
		// at the old leader, as a failover does.
		{Name: "leader-move", Case: "beyond", About: "move an input partition's leadership to another broker under load, every broker up (a reassignment): the new leader loads the share-partition state from the share coordinator",
			Cluster: underLoad(0.2, faults.LeaderMove), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		// A transient failure between a share-partition leader and its share
		// coordinator: the persister's resend must not undo newer writes.
		// Alone it shows nothing on any release (nothing reloads the state
		// between the resend and the leader's next write); the hunt mixes
		// it with the faults that do.
		{Name: "state-write-reset", Case: "beyond", About: "reset a share-partition leader's connection to its share coordinator at a state write: the persister resends the write after newer ones landed",
			Cluster: underLoad(0.2, faults.StateWriteReset), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed},
			Requires: ShapeNeed{Shape: Shape{Brokers: 2}, Why: "the state writes must cross from the leader to the share coordinator on another broker"}},
		{Name: "partition", Case: "beyond", About: "isolate one broker (all its links), then heal",
			Cluster: underLoad(0.2, faults.Partition), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		// A process pause (Jepsen's): as a kill, but the broker comes back
		// with what it held in memory and its connections never closed.
		{Name: "broker-pause", Case: "beyond", About: "freeze a random broker for 15 s under load (a long GC pause, a frozen VM: its connections stay open, nothing answers), then thaw it",
			Cluster: underLoad(0.2, faults.BrokerPause), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		// A partial partition: two brokers cannot reach each other, each
		// still reaches the clients and the third.
		{Name: "link-cut", Case: "beyond", About: "cut the links between one input partition's leader and another broker, both ways (both still serve clients), then heal",
			Cluster: underLoad(0.2, faults.LinkCut), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		// "no loss, no dup; latency reported" / "no loss; dup allowed" / "as broker-kill".
		{Name: "slow-network", Case: "beyond", About: "latency on every link for a while",
			Cluster: underLoad(0.1, faults.SlowNetwork), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired}},
		{Name: "rolling-restart", Case: "beyond", About: "restart every broker in turn",
			Cluster: underLoad(0.1, faults.RollingRestart), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed}, PendingAcrossFault: true,
			Requires: failover},
		// A release vote's question: the next release taken in under load,
		// broker by broker on its own data, then its feature levels
		// finalized. Its own load, so the roll meets a running loop.
		{Name: "rolling-upgrade", Case: "beyond", About: "every broker in turn restarted on the next release (--upgrade-to), then the feature levels finalized",
			Cluster: underLoad(0.1, faults.RollingUpgrade), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed, onNewRelease, featuresFinalized}, PendingAcrossFault: true,
			Requires: failover, Load: Load{Records: rollingUpgradeRecords}},
		// The roll back an operator would try after it: Kafka refuses a
		// release that cannot read the finalized levels; refused cleanly
		// or done whole, never half done.
		{Name: "rolling-downgrade", Case: "beyond", About: "rolling-upgrade, then every broker in turn back on the old release (Kafka may refuse: then the refusing broker is put back)",
			Cluster: underLoad(0.1, faults.RollingDowngrade), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired, healed, onNewRelease, featuresFinalized, downgradeWhole}, PendingAcrossFault: true,
			Requires: failover, Load: Load{Records: rollingUpgradeRecords}},
		// "rejected by epoch (KIP-890 style); no aborted read, no dup" in
		// every mode ("same").
		{Name: "late-endtxn", Case: "beyond", About: "a captured EndTxn replayed on a raw connection after a newer transaction began",
			Cluster: underLoad(0.1, faults.LateEndTxn), Expect: exactlyOnceElse(nothing, nothing),
			Evidence: []Evidence{firedAt(faults.PointAfterNewerTxn)}},
		// Known bugs of Apache Kafka (docs/KNOWN-BUGS.md): each must show its
		// anomaly on a release without the fix, and pass on one with it.
		// The modes' own allowances are a leader move's (the move releases
		// what the old leader had handed out): redelivered-after-ack is
		// allowed nowhere.
		{Name: "stale-share-state-write", Case: "known bug: apache/kafka #23074",
			About:   "a share-partition leader's state write above unacknowledged records is reset, its resend lands after newer writes moved the stored start offset past it, and the input partition's leadership moves: a Kafka without #23074's fix hands acknowledged records out again",
			Cluster: underLoad(0.1, faults.StaleShareStateWrite), Expect: exactlyOnceElse(duplicates, unconfirmedAcks("stale-share-state-write")),
			Evidence: []Evidence{firedAt(faults.PointStaleStateWrite), firedAt(faults.PointStateReloaded), staleWriteLanded, healed},
			Load:     Load{Partitions: 1, Records: staleWriteRecords},
			Requires: ShapeNeed{Shape: Shape{Workers: 2, Brokers: 3},
				Why: "several workers must acknowledge one share-partition's records out of order, and the leadership must move to a broker that is neither the leader nor the share coordinator"},
			KnownBug: &KnownBug{Fix: "apache/kafka #23074", FixedIn: []string{"4.4.0"}, Shows: verdict.AnomalyRedeliveredAfterAck}},
		{Name: "stale-delivery-count-write", Case: "known bug: apache/kafka #23112",
			About:   "a member of the fault's own holds a batch so the share start offset stops there, a state write above it is reset, and its resend lands with a delivery-complete count below the stored one: a Kafka without #23112's fix reports a lag that rose with no new input",
			Cluster: underLoad(0.1, faults.StaleDeliveryCountWrite), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{firedAt(faults.PointStaleCountWrite), staleCountLanded, healed},
			Load:     Load{Partitions: 1, Records: staleWriteRecords},
			Requires: ShapeNeed{Shape: Shape{Workers: 2, Brokers: 2},
				Why: "workers must acknowledge above the held batch while its state writes cross from the leader to the share coordinator on another broker"},
			KnownBug: &KnownBug{Fix: "apache/kafka #23112", FixedIn: []string{"4.4.0"}, Shows: verdict.AnomalyShareOffsetsRegressed}},
		// "no loss, no dup" / "no loss; dup allowed" / "dup; loss only after aborts".
		{Name: "random-schedule", Case: "beyond", About: "a seeded mix of the beyond-the-KIP cluster faults, one after the other",
			Cluster: underLoad(0.1, faults.RandomSchedule(scheduleMenu)), Expect: exactlyOnceElse(duplicates, duplicatesAndLossAfterAbort),
			Evidence: []Evidence{fired}, PendingAcrossFault: true,
			Requires: mixOfFailovers},
	}
}

// renewNotNative: the renew rows' stall comes after the native
// realization's TxnShareAcknowledge, and the reference broker refuses to
// renew a record whose ack is pending in a transaction (INVALID_RECORD_STATE;
// KIP-1289 does not say whether it may: docs/FINDINGS.md 23), so the lock
// runs out as in lock-expiry-before-commit.
var renewNotNative = map[string]string{ctp.RealizationNative: "the native realization's acks are pending in the transaction at the stall, and a RENEW of a record whose ack is pending is refused (INVALID_RECORD_STATE on the reference broker; KIP-1289 does not say whether it may be renewed, docs/FINDINGS.md 23): lock-expiry-before-commit is this case"}

// rollingUpgradeRecords is rolling-upgrade's input per cell: a broker's
// swap took 9-14 s on two cores, three cells at ~85 records/s each, so
// the load outlasts the three swaps and the finalization.
const rollingUpgradeRecords = 6000

// scheduleMenu is what random-schedule mixes: the catalog's "beyond" cluster
// rows (ORACLE.md), each with the load trigger stripped (the schedule itself
// waits for load once, then runs its parts back to back).
func scheduleMenu() []faults.Part {
	var menu []faults.Part
	for _, s := range catalog {
		if s.Cluster == nil || s.Case != "beyond" || s.Name == "random-schedule" || s.Name == "rolling-upgrade" || s.Name == "rolling-downgrade" {
			continue
		}
		menu = append(menu, faults.Part{Name: s.Name, Mechanism: s.Cluster.Mechanism})
	}
	return menu
}

// All is the catalog, in report order.
func All() []Scenario { return slices.Clone(catalog) }

// Lookup finds a scenario by name.
func Lookup(name string) (Scenario, bool) {
	for _, s := range catalog {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// Names lists the catalog's names in order.
func Names() []string {
	out := make([]string, len(catalog))
	for i, s := range catalog {
		out[i] = s.Name
	}
	return out
}
