package scenarios

import (
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Evidence is one thing a cell's history must show for its row's fault to
// count as having happened. A fault that fired but did not provoke what the
// row names (the records never came back, the race did not happen, the
// zombie never tried to commit) tested nothing, so a cell that lacks any of
// its row's evidence is UNKNOWN naming what is missing, never PASS.
type Evidence struct {
	// Name says what must be shown, as the reports print it.
	Name string
	// Missing is the UNKNOWN reason when it is not shown.
	Missing string
	// Find looks for it in the history, under the cell's conditions: ok,
	// and what it found (who, when), for the cell's notes.
	Find func(h history.History, c Conditions) (ok bool, found string)
}

// Show reports whether h shows every piece of evidence: the notes of what
// was found, and the first missing piece ("" when none).
func Show(evidence []Evidence, h history.History, c Conditions) (notes []string, missing *Evidence) {
	for i := range evidence {
		ok, found := evidence[i].Find(h, c)
		if !ok {
			// A Find that says why the evidence is missing is more
			// precise than the row's fixed words.
			m := evidence[i]
			if found != "" {
				m.Missing = found
			}
			return notes, &m
		}
		notes = append(notes, "evidence: "+evidence[i].Name+": "+found)
	}
	return notes, nil
}

// armed is what the history says of the armed worker's firing: its
// fault-fired event and the batch it held then (its last poll before it).
type armed struct {
	fired   history.Event
	idx     int // index of fired in the history
	batch   map[string]bool
	polled  int64 // when the armed worker polled that batch, 0 if no poll came before
	started int64 // first event of the history, for relative times
}

// findArmed finds the first fault-fired event a worker (not the
// orchestrator) wrote, other than a follower's (ctp.Arm.Follower: its hold
// is the armed fault's second half, not the armed worker).
func findArmed(h history.History) (armed, bool) {
	a := armed{batch: map[string]bool{}}
	if len(h) > 0 {
		a.started = h[0].TS
	}
	for i, e := range h {
		if e.F == history.FFaultFired && isWorker(e.Worker) && e.Attrs["action"] != string(ctp.ActionHoldRedelivered) {
			a.fired, a.idx = e, i
			for j := i - 1; j >= 0; j-- {
				if h[j].Worker == e.Worker && h[j].F == history.FPoll && h[j].Type == history.OK {
					for _, r := range h[j].Records {
						a.batch[r.ID] = true
					}
					a.polled = h[j].TS
					break
				}
			}
			return a, true
		}
	}
	return a, false
}

func isWorker(name string) bool { return strings.HasPrefix(name, "w") }

func (a armed) at(ts int64) string {
	return "+" + time.Duration(ts-a.started).Round(time.Millisecond).String()
}

// firedAt: the fault fired at its point (the worker's own fault-fired event
// for worker faults, the orchestrator's for cluster faults).
func firedAt(point string) Evidence {
	return Evidence{Name: "fired at " + point, Missing: "the fault never fired at " + point,
		Find: func(h history.History, _ Conditions) (bool, string) {
			for _, e := range h {
				if e.F == history.FFaultFired && e.Point == point {
					return true, fmt.Sprintf("%s at %s", e.Worker, time.Unix(0, e.TS).UTC().Format(time.RFC3339Nano))
				}
			}
			return false, ""
		}}
}

// fired: a cluster fault fired (any point: a schedule's parts have their own).
var fired = Evidence{Name: "fired", Missing: "the fault never fired",
	Find: func(h history.History, _ Conditions) (bool, string) {
		for _, e := range h {
			if e.F == history.FFaultFired {
				return true, fmt.Sprintf("%s %s at %s", e.Worker, e.Point, time.Unix(0, e.TS).UTC().Format(time.RFC3339Nano))
			}
		}
		return false, ""
	}}

// healed: the cluster fault was undone after it fired (a broker restarted,
// links back), so what the drain shows is recovery, not the fault.
var healed = Evidence{Name: "healed after firing", Missing: "the fault fired but was never healed",
	Find: func(h history.History, _ Conditions) (bool, string) {
		firedAt := int64(-1)
		for _, e := range h {
			if e.F == history.FFaultFired && firedAt < 0 {
				firedAt = e.TS
			}
			if e.F == history.FHeal && firedAt >= 0 && e.TS >= firedAt {
				return true, fmt.Sprintf("%s", e.Attrs["action"])
			}
		}
		return false, ""
	}}

// redelivered: a record the armed worker held when it fired was polled
// again afterwards, by any incarnation: the crash or abort gave it back.
var redelivered = Evidence{Name: "the armed batch redelivered", Missing: "no record of the armed worker's batch was delivered again",
	Find: func(h history.History, _ Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok {
			return false, ""
		}
		for _, e := range h[a.idx+1:] {
			if e.F != history.FPoll || e.Type != history.OK {
				continue
			}
			for _, r := range e.Records {
				if a.batch[r.ID] {
					return true, fmt.Sprintf("%s polled %s (delivery %d) at %s", e.Worker, r.ID, r.Delivery, a.at(e.TS))
				}
			}
		}
		return false, ""
	}}

// armedTxnEnded: the armed worker's transaction after the firing ended the
// way the row needs (abort ok for explicit-abort; a failed produce for case 7).
func armedStep(name, missing string, match func(e history.Event) bool) Evidence {
	return Evidence{Name: name, Missing: missing,
		Find: func(h history.History, _ Conditions) (bool, string) {
			a, ok := findArmed(h)
			if !ok {
				return false, ""
			}
			for _, e := range h[a.idx+1:] {
				if e.Worker == a.fired.Worker && match(e) {
					return true, fmt.Sprintf("%s %s %s at %s", e.Worker, e.F, e.Type, a.at(e.TS))
				}
			}
			return false, ""
		}}
}

var (
	armedAborted = armedStep("the armed transaction aborted", "the armed worker never aborted its transaction",
		func(e history.Event) bool { return e.F == history.FAbort && e.Type == history.OK })
	produceFailed = armedStep("the armed worker's produce failed", "the armed worker's produce never failed (the cut did not bite)",
		func(e history.Event) bool {
			return (e.F == history.FSend || e.F == history.FFlush) && e.Type == history.Fail
		})
)

// abortedOnStop: the armed worker, stopped gracefully at its point (term),
// aborted the transaction it had open when the fault fired, and then wrote
// its stop event: the graceful stop path ran, rather than a crash or a
// commit of the stopped transaction.
var abortedOnStop = Evidence{Name: "the stopped worker aborted its transaction, then stopped",
	Missing: "the stopped worker did not abort its open transaction before its stop event",
	Find: func(h history.History, _ Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok {
			return false, ""
		}
		var aborted int64
		for _, e := range h[a.idx+1:] {
			switch {
			case e.Worker != a.fired.Worker:
			case e.F == history.FAbort && e.Type == history.OK && e.Txn == a.fired.Txn:
				aborted = e.TS
			case e.F == history.FStop && aborted != 0:
				return true, fmt.Sprintf("%s aborted txn %d at %s and stopped at %s", e.Worker, a.fired.Txn, a.at(aborted), a.at(e.TS))
			}
		}
		return false, ""
	}}

// secondAcquisition: another worker acquired a record of the armed batch
// after the firing and before the armed worker's next transaction ended (its
// commit or abort returned): two holders of one record at once, the race the
// lock-expiry rows name. requireBegin also wants the armed worker to have
// begun that transaction after the firing (the stall before begin), so that
// its transaction was open, and could still commit, while the other held
// the record.
func secondAcquisition(requireBegin bool) Evidence {
	return Evidence{Name: "a second acquisition while the first transaction was open", Missing: "the race did not happen: " +
		"no other worker acquired the armed worker's records before its transaction ended",
		Find: func(h history.History, _ Conditions) (bool, string) {
			a, ok := findArmed(h)
			if !ok {
				return false, ""
			}
			var end int64 = -1
			began := !requireBegin
			for _, e := range h[a.idx+1:] {
				if e.Worker != a.fired.Worker {
					continue
				}
				if e.F == history.FBegin && e.Type == history.OK {
					began = true
				}
				if began && (e.F == history.FCommit || e.F == history.FAbort) && e.Type != history.Invoke {
					end = e.TS
					break
				}
			}
			if !began || end < 0 {
				return false, ""
			}
			for i, r := range a.acquiredByOthers(h, end) {
				return true, fmt.Sprintf("%s acquired %s (delivery %d) at %s; %s's transaction ended at %s",
					h[i].Worker, r.ID, r.Delivery, a.at(h[i].TS), a.fired.Worker, a.at(end))
			}
			return false, ""
		}}
}

// The zombie's sequence (ORACLE.md case 5 as the KIP tells it): the
// replacement initialized while the zombie was frozen, then the zombie was
// resumed, tried to commit, and was fenced.

// zombieEvents finds the zombie's resume and the replacement's init.
type zombieEvents struct {
	a       armed
	resumed int // index of the zombie's resumed event, -1 when none
	initAt  int64
	initBy  string
}

func findZombie(h history.History) (zombieEvents, bool) {
	z := zombieEvents{resumed: -1, initAt: -1}
	a, ok := findArmed(h)
	if !ok {
		return z, false
	}
	z.a = a
	next := nextIncarnation(a.fired.Worker)
	for i, e := range h[a.idx+1:] {
		if e.Worker == a.fired.Worker && e.F == history.FResumed && z.resumed < 0 {
			z.resumed = a.idx + 1 + i
		}
		if e.Worker == next && e.F == history.FInitProducer && e.Type == history.OK && z.initAt < 0 {
			z.initAt, z.initBy = e.TS, e.Worker
		}
	}
	return z, true
}

var (
	replacementReady = Evidence{Name: "the replacement initialized while the zombie was frozen",
		Missing: "the replacement's InitProducerId did not complete between the zombie's freeze and its resume",
		Find: func(h history.History, _ Conditions) (bool, string) {
			z, ok := findZombie(h)
			if !ok || z.resumed < 0 || z.initAt < 0 || z.initAt > h[z.resumed].TS {
				return false, ""
			}
			return true, fmt.Sprintf("%s fault-fired (stopped) at %s, %s init-producer ok at %s, %s resumed at %s",
				z.a.fired.Worker, z.a.at(z.a.fired.TS), z.initBy, z.a.at(z.initAt), z.a.fired.Worker, z.a.at(h[z.resumed].TS))
		}}
	zombieFenced = Evidence{Name: "the resumed zombie's commit refused as fenced",
		Missing: "the zombie never tried to commit after its resume, or its commit was not fenced",
		Find: func(h history.History, _ Conditions) (bool, string) {
			z, ok := findZombie(h)
			if !ok || z.resumed < 0 {
				return false, ""
			}
			for _, e := range h[z.resumed+1:] {
				if e.Worker != z.a.fired.Worker || e.F != history.FCommit || e.Type == history.Invoke {
					continue
				}
				if e.Type != history.OK && isFencedError(e.Error) {
					return true, fmt.Sprintf("%s commit %s at %s: %s", e.Worker, e.Type, z.a.at(e.TS), firstWords(e.Error))
				}
				if e.Type == history.Fail && strings.Contains(e.Error, kerr.InvalidTxnState.Message) {
					// kfake's answer to a zombie one epoch behind: its KIP-890
					// retry detection takes the EndTxn for a retry of the
					// transaction the replacement's InitProducerId aborted.
					// The commit is refused all the same; Kafka says fenced.
					return true, fmt.Sprintf("%s commit %s at %s: %s (kfake's word for fenced one epoch behind)",
						e.Worker, e.Type, z.a.at(e.TS), firstWords(e.Error))
				}
				return false, ""
			}
			return false, ""
		}}
)

// isFencedError says whether an error text is the coordinator's fencing
// (the words of kerr's errors, which the history keeps).
// zombieAcksFenced: the resumed zombie's first acks into its transaction
// (txn-acks: AddShareAcksToTxn and TxnShareAcknowledge natively, the ledger
// entries on the ledger) were refused, fenced by the replacement's epoch.
var zombieAcksFenced = Evidence{Name: "the resumed zombie's acks into its transaction refused as fenced",
	Missing: "the zombie never sent its acks after its resume, or they were not refused as fenced",
	Find: func(h history.History, _ Conditions) (bool, string) {
		z, ok := findZombie(h)
		if !ok || z.resumed < 0 {
			return false, ""
		}
		for _, e := range h[z.resumed+1:] {
			if e.Worker != z.a.fired.Worker || e.F != history.FTxnAcks || e.Type == history.Invoke {
				continue
			}
			if e.Type != history.OK && (isFencedError(e.Error) || strings.Contains(e.Error, kerr.InvalidTxnState.Message)) {
				return true, fmt.Sprintf("%s txn-acks %s at %s: %s", e.Worker, e.Type, z.a.at(e.TS), e.Error)
			}
			return false, ""
		}
		return false, ""
	}}

func isFencedError(s string) bool {
	return strings.Contains(s, kerr.ProducerFenced.Message) || strings.Contains(s, kerr.InvalidProducerEpoch.Message)
}

func firstWords(s string) string {
	if i := strings.IndexByte(s, ':'); i > 0 {
		return s[:i]
	}
	return s
}

// nextIncarnation is the incarnation after worker ("w2.1" -> "w2.2").
func nextIncarnation(worker string) string {
	var slot, inc int
	if n, _ := fmt.Sscanf(worker, "w%d.%d", &slot, &inc); n != 2 {
		return ""
	}
	return ctp.WorkerName(slot, inc+1)
}

// heldAcrossAcks: another worker acquired a record of the armed batch and
// still held it, not yet processing it (its next beginTransaction came
// later), when the armed worker sent that batch's acks (txn-acks, or the
// ACCEPT after the commit in explicit mode; implicit's ride on its next
// fetch, right after the commit). lock-expiry-stale-acks exists for that moment: acks from a member
// whose acquisition is gone, while another member holds it.
var heldAcrossAcks = Evidence{Name: "another worker held the records when the armed worker's acks went out",
	Missing: "the overlap did not happen: no other worker held a record of the armed batch across the armed worker's acks",
	Find: func(h history.History, _ Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok {
			return false, ""
		}
		// Implicit's acks ride on the fetch right after the commit, which
		// the history records only when it brings records: without a later
		// step, the commit's outcome is when they went out.
		acksAt, committedAt := int64(-1), int64(-1)
		for _, e := range h[a.idx+1:] {
			if e.Worker != a.fired.Worker {
				continue
			}
			if e.Type == history.Invoke && (e.F == history.FTxnAcks || e.F == history.FAck) || e.Type == history.OK && e.F == history.FPoll {
				acksAt = e.TS
				break
			}
			if e.F == history.FCommit && e.Type != history.Invoke && committedAt < 0 {
				committedAt = e.TS
			}
		}
		if acksAt < 0 {
			acksAt = committedAt
		}
		if acksAt < 0 {
			return false, ""
		}
		for i, r := range a.acquiredByOthers(h, acksAt) {
			e := h[i]
			began := int64(-1)
			for _, f := range h[i+1:] {
				if f.Worker == e.Worker && f.F == history.FBegin {
					began = f.TS
					break
				}
			}
			if began < 0 || began > acksAt {
				return true, fmt.Sprintf("%s acquired %s (delivery %d) at %s and began processing it %s; %s's acks went out at %s",
					e.Worker, r.ID, r.Delivery, a.at(e.TS), beganAt(a, began), a.fired.Worker, a.at(acksAt))
			}
		}
		return false, ""
	}}

// acquiredByOthers yields, in order, each record of the armed batch that a
// worker other than the armed one polled after the firing and before until,
// with the index of that poll in h.
func (a armed) acquiredByOthers(h history.History, until int64) iter.Seq2[int, history.Rec] {
	return func(yield func(int, history.Rec) bool) {
		for i := a.idx + 1; i < len(h); i++ {
			e := h[i]
			if e.TS >= until {
				return
			}
			if e.F != history.FPoll || e.Type != history.OK || e.Worker == a.fired.Worker {
				continue
			}
			for _, r := range e.Records {
				if a.batch[r.ID] && !yield(i, r) {
					return
				}
			}
		}
	}
}

func beganAt(a armed, ts int64) string {
	if ts < 0 {
		return "never"
	}
	return "at " + a.at(ts)
}

// acksSpanned: a transaction's acks (txn-acks ok) covered records of two
// share-partitions or more (Scenario.SpansPartitions).
// acksSharedARequest: some transaction's acks of two share-partitions or
// more went to one broker in one TxnShareAcknowledge (the sender's requests,
// ctp.AttrAckRequests), so a broker that handles only one share-partition of
// a request would not pass.
var acksSharedARequest = Evidence{Name: "a request that carried acks of several share-partitions",
	Missing: "no TxnShareAcknowledge carried acks of two share-partitions or more, so a broker that handles only the first share-partition of a request would pass",
	Find: func(h history.History, _ Conditions) (bool, string) {
		n, first := 0, ""
		for _, e := range h {
			if e.F != history.FTxnAcks || e.Type != history.OK {
				continue
			}
			for _, r := range ctp.ParseAckRequests(e.Attrs[ctp.AttrAckRequests]) {
				if len(r.Partitions) < 2 {
					continue
				}
				if n == 0 {
					first = fmt.Sprintf("%s txn %d (broker %d, partitions %v)", e.Worker, e.Txn, r.Node, r.Partitions)
				}
				n++
				break
			}
		}
		if n == 0 {
			return false, ""
		}
		return true, fmt.Sprintf("%d transactions, the first %s", n, first)
	}}

var acksSpanned = Evidence{Name: "a transaction whose acks spanned share-partitions",
	Missing: "no transaction put acks of two share-partitions or more into itself, so a broker that handles only one partition of a transaction would pass",
	Find: func(h history.History, _ Conditions) (bool, string) {
		n, first := 0, ""
		for _, e := range h {
			if e.F != history.FTxnAcks || e.Type != history.OK {
				continue
			}
			parts := map[int32]bool{}
			for _, r := range e.Records {
				parts[r.Partition] = true
			}
			if len(parts) >= 2 {
				if n == 0 {
					first = fmt.Sprintf("%s txn %d (%d partitions)", e.Worker, e.Txn, len(parts))
				}
				n++
			}
		}
		if n == 0 {
			return false, ""
		}
		return true, fmt.Sprintf("%d transactions, the first %s", n, first)
	}}
