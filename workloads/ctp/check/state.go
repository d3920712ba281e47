package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// state is one cell's observation indexed for judging, once, for every
// sub-checker: which input each output belongs to, what every transaction's
// worker saw of it, what each worker did and when. It is built by buildState
// and then only read; the sub-checkers' conclusions live in their parts.
type state struct {
	obs ctp.Observation

	// ids are the distinct input ids, sorted (so every example list is too).
	ids []string
	// inputs maps an id to where it was first seeded; reseeded holds the
	// further copies of an id the seeder wrote more than once (rare: kept
	// apart so the common case costs no slice per id).
	inputs   map[string]ctp.Input
	reseeded map[string][]ctp.Input
	// srcTopic is the input topic as the outputs' src headers name it.
	srcTopic string

	// valid maps an input id to the indexes (into obs.Outputs) of its valid
	// outputs: its processed outputs, duplicates included.
	valid map[string][]int
	// invalid are the outputs that are no input's processing, by index.
	invalid []invalidOutput
	// visible maps a transaction (from the output headers) to the distinct
	// keys of its visible outputs.
	visible map[txnRef]map[string]struct{}

	txns        map[txnRef]*txnInfo
	maxDelivery map[string]int32
	rejected    map[string]string // id -> the worker that rejected it
	lastTS      map[string]int64  // worker -> its last event
	// starts are the workers' start events per transactional id, oldest
	// first, and txnIDOf each worker's transactional id (fencing).
	starts  map[string][]startEvent
	txnIDOf map[string]string
	// txnTimeout is each worker's transaction timeout, when its start
	// event says (older histories do not).
	txnTimeout map[string]time.Duration
	// stoppedAt is when each worker wrote its stop event (a clean or
	// error exit it lived to record); a worker without one was killed.
	stoppedAt map[string]int64
	// lastPoll is, while the history is read, the newest poll ok of each
	// (worker, record): the delivery a send of that worker processes.
	lastPoll map[workerRecord]delivery
	firstTS  int64
	faults   []FaultFiring
	// clusterHeals are when the orchestrator's heals ended, oldest first: a
	// cluster fault acts from its firing to the end of the next heal.
	clusterHeals []int64
	// leaderMoves are the cluster faults' preparations that moved leaders,
	// each acting from its start to its end (FaultFiring.until).
	leaderMoves []FaultFiring
	// polls are each worker's poll ok times, oldest first, built on first
	// use (pollTimes).
	polls map[string][]int64
	// whole is set when the observation is a part of a cell (RunSubset).
	whole *Whole
}

// workerRecord is one record as one worker incarnation holds it.
type workerRecord struct {
	worker string
	id     string
}

// delivery is one acquisition of a record: the poll ok event that brought it
// (its index in the history, so two polls never compare equal) and the
// broker's delivery count.
type delivery struct {
	poll  int // index into obs.History, +1 (0: unknown)
	count int32
	ts    int64
}

// startEvent is a worker's start event.
type startEvent struct {
	worker string
	ts     int64
}

// outputFault says what is wrong with an output that is no input's processing.
type outputFault int

const (
	// outputNoInput: its key is no input id (CONTRACT.md's phantom).
	outputNoInput outputFault = iota + 1
	// outputBadContent: its key is an input id, but its value is not the
	// transform of that input or its src header does not name where the input
	// was seeded.
	outputBadContent
)

// invalidOutput is an output that belongs to no input record.
type invalidOutput struct {
	output int // index into obs.Outputs
	fault  outputFault
	why    string
}

// buildState indexes obs; a panic while indexing (a checker bug on a strange
// observation) is returned as an error, since no sub-checker can run without
// the index.
func buildState(obs ctp.Observation) (s *state, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("index observation: checker panicked: %v", r)
		}
	}()
	return newState(obs), nil
}

func newState(obs ctp.Observation) *state {
	s := &state{
		obs:         obs,
		inputs:      make(map[string]ctp.Input, len(obs.Inputs)),
		reseeded:    make(map[string][]ctp.Input),
		valid:       make(map[string][]int, len(obs.Outputs)),
		visible:     make(map[txnRef]map[string]struct{}),
		txns:        make(map[txnRef]*txnInfo),
		maxDelivery: make(map[string]int32, len(obs.Inputs)),
		rejected:    make(map[string]string),
		lastTS:      make(map[string]int64),
		starts:      make(map[string][]startEvent),
		txnIDOf:     make(map[string]string),
		txnTimeout:  make(map[string]time.Duration),
		stoppedAt:   make(map[string]int64),
		lastPoll:    make(map[workerRecord]delivery),
		firstTS:     math.MaxInt64,
	}
	s.indexInputs()
	s.indexOutputs()
	s.readHistory()
	return s
}

func (s *state) indexInputs() {
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
func (s *state) copiesOf(id string) []ctp.Input {
	in, ok := s.inputs[id]
	if !ok {
		return nil
	}
	return append([]ctp.Input{in}, s.reseeded[id]...)
}

// seededAt reports whether id was seeded at partition p, offset off.
func (s *state) seededAt(id string, p int32, off int64) bool {
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

// indexOutputs sorts every output into valid or invalid, and groups the
// visible keys by the transaction their headers name.
//
// An output is invalid when its key is no input id (CONTRACT.md's phantom),
// and also, because such an output is not the processing of any input either,
// when its value is not Transform(Payload(key)) or its src header does not
// point at where that input was seeded: a corrupted or misattributed output
// must not count as the input's processing (it would hide a loss, or make a
// duplicate). The sub-checkers phantoms and output-content report them.
func (s *state) indexOutputs() {
	s.srcTopic = s.obs.InputTopic
	if s.srcTopic == "" {
		s.srcTopic = s.commonSrcTopic()
	}
	for i, o := range s.obs.Outputs {
		if o.Worker != "" {
			t := txnRef{o.Worker, o.Txn}
			keys := s.visible[t]
			if keys == nil {
				keys = make(map[string]struct{})
				s.visible[t] = keys
			}
			keys[o.Key] = struct{}{}
		}
		if fault, why := s.outputFaultOf(o); fault != 0 {
			s.invalid = append(s.invalid, invalidOutput{output: i, fault: fault, why: why})
			continue
		}
		s.valid[o.Key] = append(s.valid[o.Key], i)
	}
}

// commonSrcTopic is the topic most outputs name in their src header (ties:
// the smallest name), for observations that do not name the input topic:
// every output of a cell comes from one input topic, so an output naming
// another topic than all the others is misattributed.
func (s *state) commonSrcTopic() string {
	votes := make(map[string]int)
	for _, o := range s.obs.Outputs {
		if topic, _, _, err := ctp.ParseSrc(o.Src); err == nil {
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

func (s *state) outputFaultOf(o ctp.Output) (outputFault, string) {
	first, ok := s.inputs[o.Key]
	if !ok {
		return outputNoInput, "its key is no input id"
	}
	if want := ctp.Transform(ctp.Payload(o.Key)); o.Value != want {
		return outputBadContent, fmt.Sprintf("its value %q is not %q", o.Value, want)
	}
	topic, p, off, err := ctp.ParseSrc(o.Src)
	if err != nil {
		return outputBadContent, fmt.Sprintf("its src header is unreadable: %v", err)
	}
	if topic != s.srcTopic {
		return outputBadContent, fmt.Sprintf("its src names topic %q, the other outputs %q", topic, s.srcTopic)
	}
	if s.seededAt(o.Key, p, off) {
		return 0, ""
	}
	return outputBadContent, fmt.Sprintf("its src p%d o%d is not where the input was seeded (p%d o%d)",
		p, off, first.Partition, first.Offset)
}

// readHistory gathers, in one pass, what the workers saw: each
// transaction's outcome, the highest delivery count of each record, rejects,
// faults, and when each worker wrote its last event.
func (s *state) readHistory() {
	for i, e := range s.obs.History {
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
					s.lastPoll[workerRecord{e.Worker, r.ID}] = delivery{poll: i + 1, count: r.Delivery, ts: e.TS}
				}
			}
		case history.FAck:
			if e.Type == history.OK && e.Ack == history.AckReject {
				for _, r := range e.Records {
					s.rejected[r.ID] = e.Worker
				}
			}
		case history.FStart:
			if d, err := time.ParseDuration(e.Attrs[history.AttrTxnTimeout]); err == nil && d > 0 {
				s.txnTimeout[e.Worker] = d
			}
			if id := e.Attrs["transactional_id"]; id != "" {
				s.txnIDOf[e.Worker] = id
				s.starts[id] = append(s.starts[id], startEvent{e.Worker, e.TS})
			}
		case history.FStop:
			s.stoppedAt[e.Worker] = e.TS
		case history.FHeal:
			if e.Worker == history.Orchestrator {
				s.clusterHeals = append(s.clusterHeals, healEnd(e))
			}
		case history.FFaultPrepare:
			// Moving leaders off a broker before the fault acts releases
			// what the old leaders had handed out, as a failover does.
			took, err := time.ParseDuration(e.Attrs["took"])
			if e.Worker == history.Orchestrator && err == nil && e.Attrs["moved_off"] != "" && e.Attrs["moved_off"] != "none" {
				s.leaderMoves = append(s.leaderMoves, FaultFiring{Name: e.Fault + " (leaders moved off a broker before it acted)",
					Point: "prepare", Worker: e.Worker, At: time.Unix(0, e.TS).UTC(), until: e.TS + took.Nanoseconds()})
			}
		case history.FFaultFired:
			s.faults = append(s.faults, FaultFiring{
				Name: e.Fault, Point: e.Point, Action: e.Attrs["action"], Worker: e.Worker, At: time.Unix(0, e.TS).UTC(),
			})
		}
		if e.Txn != 0 {
			s.readTxnEvent(e)
		}
	}
	if len(s.obs.History) == 0 {
		s.firstTS = 0
	}
	s.lastPoll = nil // only the sends needed it
	sort.SliceStable(s.faults, func(i, j int) bool { return s.faults[i].At.Before(s.faults[j].At) })
	slices.Sort(s.clusterHeals)
}

func (s *state) readTxnEvent(e history.Event) {
	t := txnRef{e.Worker, e.Txn}
	info := s.txns[t]
	if info == nil {
		info = &txnInfo{}
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
	if e.F != history.FFaultFired && e.F != history.FResumed {
		info.lastAt = e.TS
	}
	switch e.F {
	case history.FBegin:
		if e.Type == history.OK && info.beganAt == 0 {
			info.beganAt = e.TS
		}
	case history.FSend:
		// Every send event counts, not only ok: the ids of a send that failed
		// half-way were meant for this transaction too, and part of them
		// visible is exactly the torn transaction partial-produce-failure hunts.
		if info.sent == nil {
			info.sent = make(map[string]struct{}, len(e.IDs))
			info.from = make(map[string]delivery, len(e.IDs))
		}
		for _, id := range e.IDs {
			info.sent[id] = struct{}{}
			if _, seen := info.from[id]; !seen {
				info.from[id] = s.lastPoll[workerRecord{e.Worker, id}]
			}
		}
	case history.FTxnAcks:
		if e.Type == history.OK {
			info.addAcked(e.Records)
			info.txnAcked = addIDs(info.txnAcked, e.Records)
			if info.acksAt == 0 {
				info.acksAt = e.TS
			}
		}
	case history.FCommit:
		if e.Type == history.Invoke && info.commitAt == 0 {
			info.commitAt = e.TS
		}
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

// fencedAfter returns when the first other worker with the transactional id
// of worker started after ts, 0 if none did.
func (s *state) fencedAfter(worker string, ts int64) int64 {
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

// outputLess orders outputs by key, then where they sit.
func outputLess(a, b ctp.Output) bool {
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Offset < b.Offset
}

// healEnd is when a cluster heal's effects ended: its event's time, plus
// the wait it records (`waited`: until the cut-off or frozen broker was
// listed again and the ISRs full). Leaderships still move in that wait (a
// fenced broker unfenced, its preferred leaderships given back), and a new
// leader hands out again what the old one had in flight.
func healEnd(e history.Event) int64 {
	if d, err := time.ParseDuration(e.Attrs["waited"]); err == nil && d > 0 {
		return e.TS + d.Nanoseconds()
	}
	return e.TS
}
