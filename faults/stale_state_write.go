package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Where staleStateWrite fires (the catalog's evidence names them): the
// persister's resent state write reached the share coordinator over a
// stored start offset above its own, and then the share-partition's
// leadership moved, so a new leader loaded what the coordinator kept.
const (
	PointStaleStateWrite = "stale-state-write"
	PointStateReloaded   = "state-reloaded"
)

// Attributes of the stale-state-write firing: the start offset the stale
// write carried, and the coordinator's stored start offset (as
// DescribeShareGroupOffsets reads it) before it landed and after.
const (
	StaleWriteStartAttr   = "stale_write_start"
	StoredStartBeforeAttr = "stored_start_before"
	StoredStartAfterAttr  = "stored_start_after"
	// The delivery-complete counts (KIP-1226): the stale write's, and the
	// stored one the reads imply, before and after (-1: not reported).
	StaleWriteCountAttr   = "stale_write_delivery_complete"
	StoredCountBeforeAttr = "stored_delivery_complete_before"
	StoredCountAfterAttr  = "stored_delivery_complete_after"
)

// Bounds of staleStateWrite's steps.
const (
	// staleAttempts: an attempt whose resend would lower nothing (no newer
	// write moved the stored start offset past it in time) or was combined
	// with a newer write of the share-partition is let go, and the next
	// write above its start is reset again.
	staleAttempts = 6
	// staleResetWait bounds the wait for a write above its start offset:
	// with several workers on one share-partition such writes come with
	// every batch acknowledged out of order, within a second.
	staleResetWait = 15 * time.Second
	// staleDesyncGrace is how long a toxic that passes some connection of
	// the link unparsed waits for a match before it is added anew.
	staleDesyncGrace = 3 * time.Second
	// staleResendWait bounds the wait for the persister's resend (Kafka
	// 4.3's persister retries a write after about 2 s, then 4, 8, 16).
	staleResendWait = 40 * time.Second
	// staleAnsweredWait bounds the wait for the leader's next write after
	// the resend (it is sent once the resend is answered: one write request
	// in flight per coordinator).
	staleAnsweredWait = 20 * time.Second
	// staleReloadWait bounds the wait for the new leader's
	// ReadShareGroupState (its first share fetch after the move).
	staleReloadWait = 30 * time.Second
)

// readShareGroupStateKey is the api key of ReadShareGroupState: a new
// share-partition leader loading the state from the share coordinator.
const readShareGroupStateKey int16 = 84

// needsStaleStateWrite: the stale write is made on the link from a
// share-partition leader to the share coordinator, by the Kafka toxic, and
// its effect read after a leadership move.
func needsStaleStateWrite(c cluster.Cluster) string {
	why := needsAll(needsRoles, needsBrokerLinks, needsKafkaToxic, needsInterBrokerToxic, needsSeparateBrokers)(c)
	if _, kills := c.(cluster.Processes); why != "" && !kills {
		return "a stale share-state write needs real Kafka (a share-partition leader and a share coordinator on separate brokers, the persister between them): " + why
	}
	return why
}

// staleStateWrite makes apache/kafka #23074's stale state write happen on
// real traffic, for certain rather than by luck, and lets a new leader load
// what it leaves.
//
// A share-partition leader writes its state to the share coordinator with
// the start offset it had before the acknowledgement it writes, and its
// persister resends a failed write unchanged, about 2 s later. Kafka 4.2
// and 4.3's coordinator takes a write's start offset as given and prunes
// the batches below it; 4.4.0 keeps the higher of the stored one and the
// written one. So: with several workers on one share-partition, reset the
// connection at a write whose batches begin above its start offset (acks of
// records above others still unacknowledged). While the persister waits to
// resend it, the records below are acknowledged and newer writes move the
// stored start offset past the reset write's. The resend is held once it
// comes, the stored start offset read, and the resend let through alone:
// the leader's later writes, which would repair the start offset, are held
// until a new leader loaded the state. Then the input partition's
// leadership moves. A release with the bug hands the acknowledged records
// between the two start offsets out again (redelivered-after-ack); a
// release without it keeps the higher start offset.
//
// An attempt whose resend would lower nothing, or came combined with a
// newer write of the share-partition, is let go and the next write above its
// start reset again, a few times; a cell where none succeeded did not fire
// (UNKNOWN, its preparation events saying why).
func staleStateWrite(ctx context.Context, env Env) error {
	t, ended, err := prepareStaleWrite(ctx, env)
	if t != nil {
		defer t.close(ctx)
	}
	if ended || err != nil {
		return err
	}
	s := t.write
	s.accept = func(before shareRead) (bool, string) {
		if before.start <= s.stale.StartOffset {
			return false, fmt.Sprintf("the stored start offset %d is not above the resend's %d: it would lower nothing", before.start, s.stale.StartOffset)
		}
		return true, ""
	}
	landed, err := t.landOneOf(ctx, env)
	if !landed || err != nil {
		return err
	}
	fired(env, PointStaleStateWrite, time.Now(), t.firingAttrs())
	return s.reload(ctx, env, t.a, t.roles, t.leader, t.coord, t.input)
}

// staleTarget is what both stale-write faults prepare: the share-partition,
// its leader and share coordinator on separate brokers, the link between
// them, and the toxics on it.
type staleTarget struct {
	a             *admin
	roles         cluster.Roles
	input         string
	leader, coord cluster.NodeID
	write         *staleWrite
}

func (t *staleTarget) close(ctx context.Context) {
	t.write.removeAll(ctx)
	t.a.close()
}

// prepareStaleWrite draws the input partition, moves its leadership off
// its share coordinator (so its state writes cross a link) and the group
// coordinator off its leader (DescribeShareGroupOffsets, which the fault
// reads the stored state with, goes to the group coordinator, whose
// persister asks the share coordinator: on the leader's broker it would
// wait behind the fault's own hold on that link), then writes the input
// held back until then (Mechanism.TakesHold). ended: the cell ended
// meanwhile.
func prepareStaleWrite(ctx context.Context, env Env) (*staleTarget, bool, error) {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return nil, false, err
	}
	api, ls, _ := toxiAPIOf(env.Cluster)
	roles := env.Cluster.(cluster.Roles)
	topo := env.Topology
	t := &staleTarget{a: a, roles: roles}
	p := int32(env.Rand.IntN(int(topo.Partitions)))
	t.write = &staleWrite{api: api, cell: topo.Prefix, partition: p}
	t.input = fmt.Sprintf("%s/%d", topo.InputTopic, p)
	key, err := a.shareStateKey(ctx, topo.Group, topo.InputTopic, p)
	if err != nil {
		return t, false, err
	}
	if t.coord, err = coordinatorOf(ctx, roles, role{what: "share coordinator of " + t.input, kind: cluster.CoordShareState, key: key}); err != nil {
		return t, false, err
	}
	if _, ended, err := moveOff(ctx, env, a, t.coord, []role{{what: fmt.Sprintf("input/%d", p), topic: topo.InputTopic, partition: p}},
		"input leader moved off its share coordinator", map[string]string{"share_state_of": t.input, "key": key}); ended || err != nil {
		return t, ended, err
	}
	if t.leader, err = coordinatorOf(ctx, roles, role{what: "leader of " + t.input, kind: cluster.CoordLeader, key: t.input}); err != nil {
		return t, false, err
	}
	group, err := groupRole(ctx, a, topo)
	if err != nil {
		return t, false, err
	}
	if _, ended, err := moveOff(ctx, env, a, t.leader, []role{group},
		"group coordinator moved off the input partition's leader", map[string]string{"leader_of": t.input}); ended || err != nil {
		return t, ended, err
	}
	links := heldLinks(ls, func(l cluster.Link) bool { return l.From == t.leader && l.To == t.coord })
	if len(links) != 1 {
		return t, false, fmt.Errorf("stale state write: %d links from broker %d to broker %d, want 1", len(links), t.leader, t.coord)
	}
	t.write.link = links[0]
	// In place: the rest of the input comes now (TakesHold), so the load
	// that the attempts need to catch a write is all still ahead of them,
	// however long the moves took (on a busy CI machine they outlasted a
	// 300-record load, and no attempt saw a write).
	env.tookHold()
	return t, false, nil
}

// landOneOf runs attempts until one lands its stale write (landed), each
// attempt let go recorded with why.
func (t *staleTarget) landOneOf(ctx context.Context, env Env) (bool, error) {
	s := t.write
	for attempt := 1; attempt <= staleAttempts; attempt++ {
		s.attempt = attempt
		landed, why, err := s.land(ctx, env, t.a, env.Topology)
		if ctx.Err() != nil {
			// The cell ended (its load drained) while the attempt waited:
			// say so, for the cell's UNKNOWN.
			prepared(env, time.Now(), map[string]string{"action": "stale write attempt cut short", "attempt": strconv.Itoa(attempt),
				"why": "the cell ended while attempt " + strconv.Itoa(attempt) + " waited for the persister's writes"})
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if landed {
			return true, nil
		}
		prepared(env, time.Now(), map[string]string{"action": "stale write attempt let go", "attempt": strconv.Itoa(attempt), "why": why})
		s.removeAll(ctx)
	}
	return false, nil
}

// firingAttrs describe the stale write that landed.
func (t *staleTarget) firingAttrs() map[string]string {
	s := t.write
	return map[string]string{
		"action":              "the persister's resent state write let through alone, the leader's later writes held",
		"partition":           t.input,
		"leader":              strconv.Itoa(int(t.leader)),
		"share_coordinator":   strconv.Itoa(int(t.coord)),
		"link":                s.link,
		"attempt":             strconv.Itoa(s.attempt),
		StaleWriteStartAttr:   strconv.FormatInt(s.stale.StartOffset, 10),
		StaleWriteCountAttr:   strconv.Itoa(int(s.stale.DeliveryCompleteCount)),
		"stale_write_batches": fmt.Sprintf("%d-%d", s.stale.First, s.stale.Last),
		StoredStartBeforeAttr: strconv.FormatInt(s.before.start, 10),
		StoredStartAfterAttr:  strconv.FormatInt(s.after.start, 10),
		StoredCountBeforeAttr: strconv.FormatInt(s.before.deliveryComplete(), 10),
		StoredCountAfterAttr:  strconv.FormatInt(s.after.deliveryComplete(), 10),
		"resend_answered":     strconv.FormatBool(s.answered),
	}
}

// staleWrite is one link's toxics for staleStateWrite, per attempt.
type staleWrite struct {
	api       toxiAPI
	link      string
	cell      string
	partition int32
	attempt   int

	// accept says whether the resend, as the coordinator's stored state is
	// before it lands, opens the fault's window (why not, when it does not).
	accept func(before shareRead) (bool, string)

	// what the attempt found
	stale         kafkatoxic.ShareWrite
	before, after shareRead
	answered      bool
	added         []string
}

// shareRead is the share coordinator's stored state of the partition, as
// DescribeShareGroupOffsets reports it.
type shareRead struct {
	start, lag, end int64
}

// deliveryComplete is the stored delivery-complete count the read implies
// (KIP-1226: lag = end - start - delivery-complete), -1 when the broker
// reported no lag.
func (r shareRead) deliveryComplete() int64 {
	if r.lag < 0 {
		return -1
	}
	return r.end - r.start - r.lag
}

func (s *staleWrite) name(what string) string {
	return fmt.Sprintf("sc-stale-%s-%d-%s", what, s.attempt, s.cell)
}

func (s *staleWrite) add(ctx context.Context, spec kafkatoxic.Spec) error {
	if err := s.api.addKafkaToxic(ctx, s.link, spec); err != nil {
		return fmt.Errorf("stale state write: %w", err)
	}
	s.added = append(s.added, spec.Name)
	return nil
}

// removeAll lets go of and removes every toxic of the fault, under a
// context of its own: they must go whatever happened to the cell.
func (s *staleWrite) removeAll(ctx context.Context) {
	rctx, cancel := healContext(ctx, 30*time.Second)
	defer cancel()
	for i := len(s.added) - 1; i >= 0; i-- {
		_ = s.api.removeToxic(rctx, s.link, s.added[i])
	}
	s.added = nil
}

// waitFired waits until the named toxic fired, or limit passes (false).
func (s *staleWrite) waitFired(ctx context.Context, name string, limit time.Duration) (kafkatoxic.Status, bool, error) {
	wctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	began := time.Now()
	for {
		st, err := s.api.kafkaToxicStatus(wctx, s.link, name)
		if err == nil && st.Fired > 0 {
			return st, true, nil
		}
		// A connection of the link passed unparsed (the toxic joined it
		// mid-frame), and nothing matched for a while: it may be the
		// leader's, so the caller adds the toxics anew.
		if err == nil && st.Desynced > 0 && st.Matched == 0 && time.Since(began) > staleDesyncGrace {
			return st, false, nil
		}
		if !sleepCtx(wctx, 50*time.Millisecond) {
			if ctx.Err() != nil {
				return st, false, ctx.Err()
			}
			return st, false, nil
		}
	}
}

// land runs one attempt up to the stale write landing: landed false says
// why it was let go.
func (s *staleWrite) land(ctx context.Context, env Env, a *admin, topo ctp.Topology) (landed bool, why string, err error) {
	key := kafkatoxic.WriteShareGroupStateKey
	// Reset the first write above its start offset, keeping a copy.
	resetCapture := kafkatoxic.Spec{Name: s.name("reset-copy"), Action: kafkatoxic.ActionCapture, APIKey: key, Match: kafkatoxic.MatchShareWriteAboveStart, Nth: 1, CaptureLimit: 1}
	reset := kafkatoxic.Spec{Name: s.name("reset"), Action: kafkatoxic.ActionReset, APIKey: key, Match: kafkatoxic.MatchShareWriteAboveStart, Nth: 1}
	for _, spec := range []kafkatoxic.Spec{resetCapture, reset} {
		if err := s.add(ctx, spec); err != nil {
			return false, "", err
		}
	}
	st, ok, err := s.waitFired(ctx, resetCapture.Name, staleResetWait)
	if err != nil {
		return false, "", err
	}
	if !ok || len(st.Captures) == 0 {
		if st.Desynced > 0 {
			// Added while a write was half-way through the leader's
			// connection, the toxic passes that connection unparsed for
			// good (kafkatoxic's caveat): the next attempt adds it anew.
			return false, "the toxic joined the link in the middle of a frame (desynced)", nil
		}
		return false, fmt.Sprintf("no state write of a record above an unacknowledged one within %s", staleResetWait), nil
	}
	if _, ok, err := s.waitFired(ctx, reset.Name, 5*time.Second); err != nil || !ok {
		return false, "the write's connection was not reset", err
	}
	writes, err := kafkatoxic.ShareWritesAboveStart(st.Captures[0].Frame)
	if err != nil || len(writes) == 0 {
		return false, fmt.Sprintf("the reset write could not be read: %v", err), nil
	}
	i := slices.IndexFunc(writes, func(w kafkatoxic.ShareWrite) bool { return w.Partition == s.partition })
	if i < 0 {
		// The leader's writes of another share-partition crossed the same
		// link: the stored state read is the fault's partition's only.
		return false, fmt.Sprintf("the reset write was of another share-partition than %d", s.partition), nil
	}
	s.stale = writes[i]
	// Hold the resend when it comes, with a copy to see what came with it.
	again := kafkatoxic.ShareWriteMatch(s.stale.Partition, s.stale.StartOffset, s.stale.First)
	resendCapture := kafkatoxic.Spec{Name: s.name("resend-copy"), Action: kafkatoxic.ActionCapture, APIKey: key, Match: again, Nth: 1, CaptureLimit: 1}
	resend := kafkatoxic.Spec{Name: s.name("resend"), Action: kafkatoxic.ActionHold, APIKey: key, Match: again, Nth: 1}
	for _, spec := range []kafkatoxic.Spec{resendCapture, resend} {
		if err := s.add(ctx, spec); err != nil {
			return false, "", err
		}
	}
	if _, ok, err := s.waitFired(ctx, resend.Name, staleResendWait); err != nil || !ok {
		return false, fmt.Sprintf("the persister did not resend the reset write within %s", staleResendWait), err
	}
	st, _, err = s.waitFired(ctx, resendCapture.Name, 5*time.Second)
	if err != nil || len(st.Captures) == 0 {
		return false, "the resend's copy is missing", err
	}
	last, n, err := kafkatoxic.LastShareWrite(st.Captures[0].Frame, s.stale.Partition)
	if err != nil {
		return false, fmt.Sprintf("the resend could not be read: %v", err), nil
	}
	if last.StartOffset != s.stale.StartOffset || last.First != s.stale.First {
		return false, fmt.Sprintf("the resend came with %d writes of the share-partition, the last from start offset %d", n, last.StartOffset), nil
	}
	before, known, err := s.readOffsets(ctx, env, a, topo)
	if err != nil || !known {
		return false, fmt.Sprintf("the stored start offset could not be read: %v", err), nil
	}
	if ok, why := s.accept(before); !ok {
		return false, why, nil
	}
	s.before = before
	// Let the resend through alone: the leader sends its next write only
	// once the resend is answered, and that one is held.
	block := kafkatoxic.Spec{Name: s.name("block"), Action: kafkatoxic.ActionHold, APIKey: key, Nth: 2}
	if err := s.add(ctx, block); err != nil {
		return false, "", err
	}
	if err := s.api.releaseKafkaToxic(ctx, s.link, resend.Name); err != nil {
		return false, "", fmt.Errorf("stale state write: %w", err)
	}
	_, s.answered, err = s.waitFired(ctx, block.Name, staleAnsweredWait)
	if err != nil {
		return false, "", err
	}
	after, known, err := s.readOffsets(ctx, env, a, topo)
	if err != nil || !known {
		after = shareRead{start: -1, lag: -1}
	}
	s.after = after
	return true, "", nil
}

// readOffsets reads the share group's offsets of the fault's partition as
// DescribeShareGroupOffsets reports them (the share coordinator's stored
// state), records them on the timeline (the checker's share-offsets
// check compares consecutive reads), and returns the start offset.
func (s *staleWrite) readOffsets(ctx context.Context, env Env, a *admin, topo ctp.Topology) (shareRead, bool, error) {
	offs, err := ctp.ReadShareOffsets(ctx, a.cl, topo.Group, topo.InputTopic)
	if err != nil {
		return shareRead{}, false, err
	}
	p := s.partition
	start, known := offs.Reported[p]
	r := shareRead{start: start, lag: offs.Lag[p], end: offs.End[p]}
	if known {
		env.record(history.Event{TS: time.Now().UnixNano(), Type: history.OK, F: history.FShareOffsets, Attrs: map[string]string{
			"topic": topo.InputTopic, "partition": strconv.Itoa(int(p)), "start": strconv.FormatInt(r.start, 10),
			"lag": strconv.FormatInt(r.lag, 10), "end": strconv.FormatInt(r.end, 10)}})
	}
	return r, known, nil
}

// reload moves the input partition's leadership off the leader whose later
// writes are held, waits until the new leader read the state from the
// share coordinator, then lets the held writes go (the old leader's epoch
// is fenced by then) and heals.
func (s *staleWrite) reload(ctx context.Context, env Env, a *admin, roles cluster.Roles, leader, coord cluster.NodeID, input string) error {
	var to cluster.NodeID = -1
	for _, n := range env.Cluster.Nodes() {
		if n != leader && n != coord {
			to = n
			break
		}
	}
	if to < 0 {
		return errors.New("stale state write: no third broker to move the leadership to")
	}
	_, ls, _ := toxiAPIOf(env.Cluster)
	readLinks := heldLinks(ls, func(l cluster.Link) bool { return l.From == to && l.To == coord })
	read := kafkatoxic.Spec{Name: s.name("reload"), Action: kafkatoxic.ActionCapture, APIKey: readShareGroupStateKey, CaptureLimit: 1}
	for _, l := range readLinks {
		if err := s.api.addKafkaToxic(ctx, l, read); err != nil {
			return fmt.Errorf("stale state write: %w", err)
		}
	}
	defer func() {
		rctx, cancel := healContext(ctx, 30*time.Second)
		defer cancel()
		for _, l := range readLinks {
			_ = s.api.removeToxic(rctx, l, read.Name)
		}
	}()
	mctx, cancel := context.WithTimeout(ctx, moveLimit)
	err := roles.MoveLeader(mctx, env.Topology.InputTopic, s.partition, to)
	cancel()
	movedAt := time.Now()
	if err != nil {
		return fmt.Errorf("stale state write: move %s to broker %d: %w", input, to, err)
	}
	reloaded := false
	wctx, wcancel := context.WithTimeout(ctx, staleReloadWait)
	for !reloaded && len(readLinks) > 0 {
		for _, l := range readLinks {
			if st, err := s.api.kafkaToxicStatus(wctx, l, read.Name); err == nil && st.Fired > 0 {
				reloaded = true
			}
		}
		if !reloaded && !sleepCtx(wctx, 50*time.Millisecond) {
			break
		}
	}
	wcancel()
	fired(env, PointStateReloaded, movedAt, map[string]string{
		"action":    "the input partition's leadership moved, so a new leader loads the share-partition state",
		"partition": input, "from": strconv.Itoa(int(leader)), "to": strconv.Itoa(int(to)),
		"state_read": strconv.FormatBool(reloaded),
	})
	s.removeAll(ctx)
	healed(env, time.Now(), map[string]string{"action": "the old leader's held state writes let go", "link": s.link})
	return nil
}
