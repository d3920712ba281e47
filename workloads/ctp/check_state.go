package ctp

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// checkState is one cell's observation indexed for judging: which input each
// output belongs to, what every transaction's worker saw of it, how far the
// share group got. It is built once by newCheckState and then only read.
type checkState struct {
	obs Observation

	// ids are the distinct input ids, sorted (so every example list is too).
	ids []string
	// inputs maps an id to where it was first seeded; reseeded holds the
	// further copies of an id the seeder wrote more than once (rare: kept
	// apart so the common case costs no slice per id).
	inputs   map[string]Input
	reseeded map[string][]Input
	// srcTopic is the input topic as the outputs' src headers name it.
	srcTopic string

	// valid maps an input id to the indexes (into obs.Outputs) of its valid
	// outputs: its processed outputs, duplicates included.
	valid    map[string][]int
	phantoms []checkPhantom
	// visible maps a transaction (from the output headers) to the distinct
	// keys of its visible outputs.
	visible map[checkTxn]map[string]struct{}

	txns        map[checkTxn]*checkTxnInfo
	maxDelivery map[string]int32
	rejected    map[string]string // id -> the worker that rejected it
	lastTS      map[string]int64  // worker -> its last event
	// starts are the workers' start events per transactional id, oldest
	// first, and txnIDOf each worker's transactional id (fencing).
	starts  map[string][]checkStart
	txnIDOf map[string]string
	firstTS int64
	faults  []FaultFiring

	// What the checker concluded, each sorted by record id.
	lost, archived, unseen []string
	unknownStart           []int32 // input partitions without a share start offset
	abortedReads           []int   // indexes into obs.Outputs
	torn                   []checkTorn
	pending                []checkPending
}

// checkStart is a worker's start event.
type checkStart struct {
	worker string
	ts     int64
}

// checkTxn names one transaction: a worker incarnation and its sequence number.
type checkTxn struct {
	worker string
	seq    int64
}

func (t checkTxn) String() string { return fmt.Sprintf("%s txn %d", t.worker, t.seq) }

// checkTxnInfo is what a worker's history says about one of its transactions.
type checkTxnInfo struct {
	sawAbort      bool // abort ok, or commit fail (definitely not committed)
	sawCommitOK   bool
	commitInvoked bool
	// sent are the ids whose outputs the transaction produced (send events).
	sent map[string]struct{}
	// acked are the ids whose acks went into it (txn-acks ok, commit records).
	acked map[string]struct{}
	// acksAt is when its acks were first certainly pending (txn-acks ok), 0 if never.
	acksAt int64
	// closedAt is when it stopped being able to commit later: the commit's
	// outcome, or the abort's invoke (a worker that decides to abort never
	// commits that transaction). 0 while the history shows it open.
	closedAt int64
	// closedBy names that event, for examples.
	closedBy string
	// endedBy names the event that decided the outcome (commit ok / fail /
	// info, abort ok), for examples.
	endedBy string
}

// checkTxnOutcome is how a transaction ended, as far as its worker knew.
type checkTxnOutcome int

const (
	// checkTxnUnrecorded: no event names the transaction.
	checkTxnUnrecorded checkTxnOutcome = iota
	// checkTxnNeverCommitted: the worker used it but never invoked commit.
	// Kafka commits only on EndTxn(COMMIT) and a worker records the commit's
	// invoke before sending it, so such a transaction cannot have committed:
	// the broker aborts it (the replacement's InitProducerId, or the timeout).
	checkTxnNeverCommitted
	// checkTxnUnknown: commit invoked, outcome unknown (info, or the worker
	// died waiting). Either outcome is acceptable.
	checkTxnUnknown
	checkTxnCommitted
	// checkTxnAborted: abort ok, or commit fail.
	checkTxnAborted
)

func (t *checkTxnInfo) outcome() checkTxnOutcome {
	switch {
	case t == nil:
		return checkTxnUnrecorded
	case t.sawAbort:
		return checkTxnAborted
	case t.sawCommitOK:
		return checkTxnCommitted
	case t.commitInvoked:
		return checkTxnUnknown
	}
	return checkTxnNeverCommitted
}

// checkPhantom is an output that belongs to no input record.
type checkPhantom struct {
	output int // index into obs.Outputs
	why    string
}

// checkTorn is a transaction with only part of its output visible.
type checkTorn struct {
	txn     checkTxn
	sent    int
	visible int
	missing []string // sorted
}

// checkPending is a record acquired by a second worker while the first
// worker's transaction held its ack pending (native realization).
type checkPending struct {
	id     string
	holder checkTxn
	other  string // the worker that polled it
	polled int64
	info   *checkTxnInfo
}

func newCheckState(obs Observation) *checkState {
	s := &checkState{
		obs:         obs,
		inputs:      make(map[string]Input, len(obs.Inputs)),
		reseeded:    make(map[string][]Input),
		valid:       make(map[string][]int, len(obs.Outputs)),
		visible:     make(map[checkTxn]map[string]struct{}),
		txns:        make(map[checkTxn]*checkTxnInfo),
		maxDelivery: make(map[string]int32, len(obs.Inputs)),
		rejected:    make(map[string]string),
		lastTS:      make(map[string]int64),
		starts:      make(map[string][]checkStart),
		txnIDOf:     make(map[string]string),
		firstTS:     math.MaxInt64,
	}
	s.indexInputs()
	s.indexOutputs()
	s.readHistory()
	s.classifyInputs()
	s.findAbortedReads()
	s.findTornTxns()
	if obs.Mode == Transactional && obs.Realization == "native" {
		s.findRedeliveredWhilePending()
	}
	return s
}

func (s *checkState) indexInputs() {
	for _, in := range s.obs.Inputs {
		if _, seen := s.inputs[in.ID]; seen {
			s.reseeded[in.ID] = append(s.reseeded[in.ID], in)
			continue
		}
		s.inputs[in.ID] = in
		s.ids = append(s.ids, in.ID)
	}
	sort.Strings(s.ids)
}

// copiesOf returns every place id was seeded, first copy first.
func (s *checkState) copiesOf(id string) []Input {
	in, ok := s.inputs[id]
	if !ok {
		return nil
	}
	return append([]Input{in}, s.reseeded[id]...)
}

// seededAt reports whether id was seeded at partition p, offset off.
func (s *checkState) seededAt(id string, p int32, off int64) bool {
	if in := s.inputs[id]; in.Partition == p && in.Offset == off {
		return true
	}
	for _, in := range s.reseeded[id] {
		if in.Partition == p && in.Offset == off {
			return true
		}
	}
	return false
}

// indexOutputs sorts every output into valid or phantom, and groups the
// visible keys by the transaction their headers name.
//
// A phantom is an output whose key is no input id (CONTRACT.md), and also,
// because such an output is not the processing of any input either, one
// whose value is not Transform(Payload(key)) or whose src header does not
// point at where that input was seeded: a corrupted or misattributed output
// must not count as the input's processing.
func (s *checkState) indexOutputs() {
	s.srcTopic = s.obs.InputTopic
	if s.srcTopic == "" {
		s.srcTopic = s.commonSrcTopic()
	}
	for i, o := range s.obs.Outputs {
		if o.Worker != "" {
			t := checkTxn{o.Worker, o.Txn}
			keys := s.visible[t]
			if keys == nil {
				keys = make(map[string]struct{})
				s.visible[t] = keys
			}
			keys[o.Key] = struct{}{}
		}
		if why := s.phantomWhy(o); why != "" {
			s.phantoms = append(s.phantoms, checkPhantom{output: i, why: why})
			continue
		}
		s.valid[o.Key] = append(s.valid[o.Key], i)
	}
}

// commonSrcTopic is the topic most outputs name in their src header (ties:
// the smallest name), for observations that do not name the input topic:
// every output of a cell comes from one input topic, so an output naming
// another topic than all the others is misattributed.
func (s *checkState) commonSrcTopic() string {
	votes := make(map[string]int)
	for _, o := range s.obs.Outputs {
		if topic, _, _, err := ParseSrc(o.Src); err == nil {
			votes[topic]++
		}
	}
	best, bestVotes := "", 0
	for topic, n := range votes {
		if n > bestVotes || (n == bestVotes && topic < best) {
			best, bestVotes = topic, n
		}
	}
	return best
}

func (s *checkState) phantomWhy(o Output) string {
	first, ok := s.inputs[o.Key]
	if !ok {
		return "its key is no input id"
	}
	if want := Transform(Payload(o.Key)); o.Value != want {
		return fmt.Sprintf("its value %q is not %q", o.Value, want)
	}
	topic, p, off, err := ParseSrc(o.Src)
	if err != nil {
		return fmt.Sprintf("its src header is unreadable: %v", err)
	}
	if topic != s.srcTopic {
		return fmt.Sprintf("its src names topic %q, the other outputs %q", topic, s.srcTopic)
	}
	if s.seededAt(o.Key, p, off) {
		return ""
	}
	return fmt.Sprintf("its src p%d o%d is not where the input was seeded (p%d o%d)",
		p, off, first.Partition, first.Offset)
}

// readHistory gathers, in one pass, what the workers saw: each
// transaction's outcome, the highest delivery count of each record, rejects,
// faults, and when each worker wrote its last event.
func (s *checkState) readHistory() {
	for _, e := range s.obs.History {
		if e.TS < s.firstTS {
			s.firstTS = e.TS
		}
		if e.TS > s.lastTS[e.Worker] {
			s.lastTS[e.Worker] = e.TS
		}
		switch e.F {
		case history.FPoll:
			if e.Type == history.OK {
				for _, r := range e.Records {
					if r.Delivery > s.maxDelivery[r.ID] {
						s.maxDelivery[r.ID] = r.Delivery
					}
				}
			}
		case history.FAck:
			if e.Type == history.OK && e.Ack == history.AckReject {
				for _, r := range e.Records {
					s.rejected[r.ID] = e.Worker
				}
			}
		case history.FStart:
			if id := e.Attrs["transactional_id"]; id != "" {
				s.txnIDOf[e.Worker] = id
				s.starts[id] = append(s.starts[id], checkStart{e.Worker, e.TS})
			}
		case history.FFaultFired:
			s.faults = append(s.faults, FaultFiring{
				Name: e.Fault, Point: e.Point, Worker: e.Worker, At: time.Unix(0, e.TS).UTC(),
			})
		}
		if e.Txn != 0 {
			s.readTxnEvent(e)
		}
	}
	if len(s.obs.History) == 0 {
		s.firstTS = 0
	}
	sort.SliceStable(s.faults, func(i, j int) bool { return s.faults[i].At.Before(s.faults[j].At) })
}

func (s *checkState) readTxnEvent(e history.Event) {
	t := checkTxn{e.Worker, e.Txn}
	info := s.txns[t]
	if info == nil {
		info = &checkTxnInfo{}
		s.txns[t] = info
	}
	closeAt := func(what string) {
		if info.closedAt == 0 {
			info.closedAt, info.closedBy = e.TS, what
		}
	}
	endBy := func(what string) {
		closeAt(what)
		if info.endedBy == "" {
			info.endedBy = what
		}
	}
	switch e.F {
	case history.FSend:
		// Every send event counts, not only ok: the ids of a send that failed
		// half-way were meant for this transaction too, and part of them
		// visible is exactly the torn transaction partial-produce-failure hunts.
		if info.sent == nil {
			info.sent = make(map[string]struct{}, len(e.IDs))
		}
		for _, id := range e.IDs {
			info.sent[id] = struct{}{}
		}
	case history.FTxnAcks:
		if e.Type == history.OK {
			info.addAcked(e.Records)
			if info.acksAt == 0 {
				info.acksAt = e.TS
			}
		}
	case history.FCommit:
		info.commitInvoked = true
		info.addAcked(e.Records)
		switch e.Type {
		case history.OK:
			info.sawCommitOK = true
			endBy("commit ok")
		case history.Fail:
			info.sawAbort = true
			endBy("commit fail")
		case history.Info:
			endBy("commit info (outcome unknown)")
		}
	case history.FAbort:
		if e.Type == history.OK {
			info.sawAbort = true
			endBy("abort ok")
		}
		closeAt("abort " + string(e.Type))
	}
}

func (t *checkTxnInfo) addAcked(recs []history.Rec) {
	if len(recs) == 0 {
		return
	}
	if t.acked == nil {
		t.acked = make(map[string]struct{}, len(recs))
	}
	for _, r := range recs {
		t.acked[r.ID] = struct{}{}
	}
}

// classifyInputs splits the inputs without a valid output into lost (the
// share group is done with them: below its start offset), of which archived
// (delivery limit reached or rejected), and unseen (not done, or unknown).
func (s *checkState) classifyInputs() {
	unknown := make(map[int32]bool)
	for _, id := range s.ids {
		if len(s.valid[id]) > 0 {
			continue
		}
		done := true
		for _, in := range s.copiesOf(id) {
			start, known := s.obs.ShareStart[in.Partition]
			if !known {
				unknown[in.Partition] = true
			}
			if !known || in.Offset >= start {
				done = false
			}
		}
		if !done {
			s.unseen = append(s.unseen, id)
			continue
		}
		s.lost = append(s.lost, id)
		if s.archivedWhy(id) != "" {
			s.archived = append(s.archived, id)
		}
	}
	for p := range unknown {
		s.unknownStart = append(s.unknownStart, p)
	}
	sort.Slice(s.unknownStart, func(i, j int) bool { return s.unknownStart[i] < s.unknownStart[j] })
}

// archivedWhy says why the broker archived the record, "" if it did not
// (as far as the histories show).
func (s *checkState) archivedWhy(id string) string {
	if w, ok := s.rejected[id]; ok {
		return "rejected by " + w
	}
	if limit := s.obs.DeliveryLimit; limit > 0 && s.maxDelivery[id] >= limit {
		return fmt.Sprintf("delivered %d times, the limit is %d", s.maxDelivery[id], limit)
	}
	return ""
}

// findAbortedReads finds the visible outputs of transactions that cannot
// have committed: their worker saw them aborted (abort ok, commit fail), or
// never invoked commit (the crash-after-send case of ORACLE.md, "output never
// visible (no aborted read)").
func (s *checkState) findAbortedReads() {
	for i, o := range s.obs.Outputs {
		if o.Worker == "" {
			continue
		}
		switch s.txns[checkTxn{o.Worker, o.Txn}].outcome() {
		case checkTxnAborted, checkTxnNeverCommitted:
			s.abortedReads = append(s.abortedReads, i)
		}
	}
	outs := s.obs.Outputs
	sort.SliceStable(s.abortedReads, func(i, j int) bool {
		return checkOutputLess(outs[s.abortedReads[i]], outs[s.abortedReads[j]])
	})
}

// findTornTxns finds transactions with some but not all of their outputs
// visible. A transaction's outputs are the ids its send events list plus any
// visible output naming it. A commit of unknown outcome may show all or
// nothing, never part; so may every other outcome (an aborted transaction
// with part visible is both an aborted read and torn).
func (s *checkState) findTornTxns() {
	for t, info := range s.txns {
		keys := s.visible[t]
		if len(keys) == 0 || len(info.sent) == 0 {
			continue
		}
		var missing []string
		for id := range info.sent {
			if _, ok := keys[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			continue
		}
		sort.Strings(missing)
		s.torn = append(s.torn, checkTorn{
			txn: t, sent: len(missing) + len(keys), visible: len(keys), missing: missing,
		})
	}
	sort.Slice(s.torn, func(i, j int) bool {
		a, b := s.torn[i], s.torn[j]
		if a.missing[0] != b.missing[0] {
			return a.missing[0] < b.missing[0]
		}
		if a.txn.worker != b.txn.worker {
			return a.txn.worker < b.txn.worker
		}
		return a.txn.seq < b.txn.seq
	})
}

// findRedeliveredWhilePending finds records that a worker B polled while
// worker A's transaction held their ack pending: after A's txn-acks ok and
// before A's commit outcome (or abort). If A then commits, the record is
// processed twice; KIP-1289 leaves open whether the broker blocks this
// (ARCHITECTURE.md, native realization), and this is how the suite sees it.
//
// B's poll ok time is when B certainly holds the record; A's acks are
// certainly pending from its txn-acks ok. If A's history ends without an
// outcome, A died: a dead worker cannot invoke commit any more, so the window
// closes at A's last event (a commit invoked just before dying may still
// complete on the broker; that tail is not judged). It also closes when
// another worker with A's transactional id starts: the replacement's
// InitProducerId fences A and aborts its open transaction (ORACLE.md, case 2
// and zombie-fenced), before that worker's first poll.
func (s *checkState) findRedeliveredWhilePending() {
	// The windows of one id form a chain through next (index+1, 0 ends it),
	// so the common case, one window per id, costs no slice per id.
	type window struct {
		txn        checkTxn
		info       *checkTxnInfo
		start, end int64
		next       int
	}
	var windows []window
	byID := make(map[string]int)
	for t, info := range s.txns {
		if info.acksAt == 0 {
			continue
		}
		end := info.closedAt
		if end == 0 {
			end = s.lastTS[t.worker]
		}
		if fenced := s.fencedAfter(t.worker, info.acksAt); fenced != 0 && fenced < end {
			end = fenced
		}
		for id := range info.acked {
			windows = append(windows, window{t, info, info.acksAt, end, byID[id]})
			byID[id] = len(windows)
		}
	}
	if len(byID) == 0 {
		return
	}
	first := make(map[string]checkPending)
	for _, e := range s.obs.History {
		if e.F != history.FPoll || e.Type != history.OK {
			continue
		}
		for _, r := range e.Records {
			for i := byID[r.ID]; i != 0; i = windows[i-1].next {
				w := windows[i-1]
				if w.txn.worker == e.Worker || e.TS <= w.start || e.TS >= w.end {
					continue
				}
				p := checkPending{id: r.ID, holder: w.txn, other: e.Worker, polled: e.TS, info: w.info}
				if old, seen := first[r.ID]; !seen || checkPendingLess(p, old) {
					first[r.ID] = p
				}
			}
		}
	}
	for _, p := range first {
		s.pending = append(s.pending, p)
	}
	sort.Slice(s.pending, func(i, j int) bool { return s.pending[i].id < s.pending[j].id })
}

// fencedAfter returns when the first other worker with the transactional id
// of worker started after ts, 0 if none did.
func (s *checkState) fencedAfter(worker string, ts int64) int64 {
	id := s.txnIDOf[worker]
	if id == "" {
		return 0
	}
	for _, st := range s.starts[id] {
		if st.worker != worker && st.ts > ts {
			return st.ts
		}
	}
	return 0
}

// checkPendingLess orders two findings about one record: earliest poll first,
// then by names, so the example does not depend on map order.
func checkPendingLess(a, b checkPending) bool {
	if a.polled != b.polled {
		return a.polled < b.polled
	}
	if a.holder.worker != b.holder.worker {
		return a.holder.worker < b.holder.worker
	}
	if a.holder.seq != b.holder.seq {
		return a.holder.seq < b.holder.seq
	}
	return a.other < b.other
}

// checkOutputLess orders outputs by key, then where they sit.
func checkOutputLess(a, b Output) bool {
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Offset < b.Offset
}
