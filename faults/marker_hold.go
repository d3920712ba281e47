package faults

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/cluster"
)

// A marker hold keeps a committed transaction's WriteTxnMarkers from the
// partition leaders with the Kafka-aware toxic, so a fault can kill a
// broker while the commit is answered but not yet written: case 4 holds
// them out of the transaction coordinator, data-leader-kill-after-endtxn
// into a share-partition leader.

// writeTxnMarkersKey is the api key of WriteTxnMarkers: the transaction
// coordinator's request to the partition leaders that writes a
// transaction's COMMIT or ABORT markers.
const writeTxnMarkersKey int16 = 27

// Bounds of a marker hold's steps.
const (
	// markerWait bounds the wait for a commit of a broker's transactions.
	markerWait = time.Minute
	// discardWait bounds the wait for toxiproxy to see the killed
	// broker's connections close (and drop what it held).
	discardWait = 15 * time.Second
	// completeWait bounds the wait for the commit to complete on recovery.
	completeWait = time.Minute
	// holdAttempts: a held ABORT marker is let go and the hold set again.
	holdAttempts = 3
	// preferWait bounds the wait for a preferred commit's markers
	// (markerHold.waitCommit) once some commit's are held: the worker whose
	// commit is held is stuck, and may be the only member that could
	// write the preferred kind (the one assigned that input partition).
	preferWait = 3 * time.Second
)

// needsHeldMarkers is what a fault that holds a commit's WriteTxnMarkers
// and kills a broker meanwhile needs (case 4, and the share-partition
// leader's variant): a kill -9 that Kafka recovers from, roles to move,
// links between brokers, and the Kafka toxic on them.
func needsHeldMarkers(c cluster.Cluster) string {
	why := needsAll(needsProcesses, needsRoles, needsBrokerLinks, needsKafkaToxic, needsInterBrokerToxic)(c)
	if _, kills := c.(cluster.Processes); why != "" && !kills {
		// Said only where it is the point: a backend of real brokers
		// (external) lacks a hook or a proxy, not Kafka.
		return "holding a commit's markers needs real Kafka (kfake completes a transaction at once: no PREPARE_COMMIT window, no WriteTxnMarkers between brokers to hold): " + why
	}
	return why
}

// heldCommit is the transaction whose markers the hold caught.
type heldCommit struct {
	txnID      string
	producerID int64
	epoch      int16
	partitions string
	heldAt     time.Time
}

var (
	errNoMarker    = errors.New("no transaction of the cell committed through the coordinator")
	errAbortMarker = errors.New("the first held markers were an ABORT's")
	// errNotPreferred: commits were held, none of the kind asked for.
	errNotPreferred = errors.New("no held commit of the kind asked for")
)

// markerHold is a capture and a hold of WriteTxnMarkers on each link from
// the coordinator: the capture (first in the chain) keeps a copy to say
// which transaction was held, the hold keeps every marker request (Nth 0,
// so the coordinator's retries on new connections are held too) from the
// partition leaders.
type markerHold struct {
	api   toxiAPI
	links []string
	// fault names the toxics ("case4"): two faults never share one.
	fault string
	// cell is the cell's topic prefix, which ends the toxics' names: a
	// backend that heals after each cell (the external one) tells its
	// toxics from other cells' by it.
	cell string
}

func (h markerHold) capture() kafkatoxic.Spec {
	return kafkatoxic.Spec{Name: "sc-" + h.fault + "-capture-" + h.cell, Action: kafkatoxic.ActionCapture, APIKey: writeTxnMarkersKey, CaptureLimit: 8}
}

func (h markerHold) hold() kafkatoxic.Spec {
	return kafkatoxic.Spec{Name: "sc-" + h.fault + "-hold-" + h.cell, Action: kafkatoxic.ActionHold, APIKey: writeTxnMarkersKey}
}

func (h markerHold) set(ctx context.Context) error {
	for _, l := range h.links {
		for _, s := range []kafkatoxic.Spec{h.capture(), h.hold()} {
			if err := h.api.addKafkaToxic(ctx, l, s); err != nil {
				return fmt.Errorf("hold WriteTxnMarkers: %w", err)
			}
		}
	}
	return nil
}

// remove lets go of and removes both toxics on every link, under a context
// of its own: the hold must go whatever happened to the cell.
func (h markerHold) remove(ctx context.Context) {
	rctx, cancel := healContext(ctx, 30*time.Second)
	defer cancel()
	for _, l := range h.links {
		for _, s := range []kafkatoxic.Spec{h.hold(), h.capture()} {
			_ = h.api.removeToxic(rctx, l, s.ToxicName())
		}
	}
}

// waitCommit waits until the hold caught markers of one of the cell's
// transactions and returns which. Markers of another producer (none in a
// cell that runs alone) are not the cell's: the wait goes on. With prefer,
// a commit whose marker partitions it accepts is waited for up to
// preferWait after the first commit was caught (later transactions' markers
// are held too), and errNotPreferred returned when none comes.
func (h markerHold) waitCommit(ctx context.Context, a *admin, env Env, prefer func(partitions []string) bool) (heldCommit, error) {
	producers := map[int64]string{}
	deadline := time.Now().Add(markerWait)
	var first *heldCommit
	for {
		for _, l := range h.links {
			st, err := h.api.kafkaToxicStatus(ctx, l, h.capture().ToxicName())
			if err != nil {
				return heldCommit{}, err
			}
			for _, c := range st.Captures {
				req := kmsg.NewPtrWriteTxnMarkersRequest()
				if _, err := kafkatoxic.DecodeRequest(c.Frame, req); err != nil {
					return heldCommit{}, fmt.Errorf("read held markers: %w", err)
				}
				for _, m := range req.Markers {
					txnID, ok := producers[m.ProducerID]
					if !ok {
						refreshProducers(ctx, a, env, producers)
						if txnID, ok = producers[m.ProducerID]; !ok {
							continue
						}
					}
					if !m.Committed {
						if first != nil {
							continue // a later abort: the commit caught first stands
						}
						return heldCommit{}, fmt.Errorf("hold markers of %s: %w", txnID, errAbortMarker)
					}
					var parts []string
					for _, t := range m.Topics {
						for _, p := range t.Partitions {
							parts = append(parts, fmt.Sprintf("%s/%d", t.Topic, p))
						}
					}
					commit := heldCommit{txnID: txnID, producerID: m.ProducerID, epoch: m.ProducerEpoch,
						partitions: strings.Join(parts, ","), heldAt: c.At}
					if prefer == nil || prefer(parts) {
						return commit, nil
					}
					if first == nil {
						first = &commit
					}
				}
			}
		}
		if first != nil && (time.Since(first.heldAt) > preferWait || time.Now().After(deadline)) {
			return *first, fmt.Errorf("hold markers of %s (%s): %w", first.txnID, first.partitions, errNotPreferred)
		}
		if time.Now().After(deadline) {
			return heldCommit{}, errNoMarker
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return heldCommit{}, ctx.Err()
		}
	}
}

// attrs are the firing's attributes naming the held commit, with more.
func (c heldCommit) attrs(more map[string]string) map[string]string {
	out := map[string]string{"transactional_id": c.txnID, "producer_id": strconv.FormatInt(c.producerID, 10),
		"producer_epoch": strconv.Itoa(int(c.epoch)), "markers_held_since": c.heldAt.UTC().Format(time.RFC3339Nano),
		"marker_partitions": c.partitions}
	maps.Copy(out, more)
	return out
}

// heldLinks are the names of the links between brokers that keep, sorted.
func heldLinks(ls []cluster.Link, keep func(cluster.Link) bool) []string {
	var held []string
	for _, l := range ls {
		if l.Kind == cluster.LinkInternal && keep(l) {
			held = append(held, l.Name)
		}
	}
	slices.Sort(held)
	return held
}

// catch sets the hold and waits until it caught a commit of the cell,
// letting go of and setting again a hold that caught an ABORT first or,
// with prefer, no commit prefer accepts (the last attempt takes any
// commit). caught is false when the fault must not fire: the cell ended
// first, no transaction committed through the held links (err nil: the
// cell is UNKNOWN), or the hold failed (err says how). The rest of the
// input comes once the hold is set (TakesHold), through brokers that are
// all up.
func (h markerHold) catch(ctx context.Context, a *admin, env Env, attempts int, prefer func(partitions []string) bool) (commit heldCommit, caught bool, err error) {
	for attempt := 1; ; attempt++ {
		if err := h.set(ctx); err != nil {
			h.remove(ctx)
			return heldCommit{}, false, err
		}
		env.tookHold()
		want := prefer
		if attempt == attempts {
			want = nil
		}
		commit, err = h.waitCommit(ctx, a, env, want)
		if err == nil {
			return commit, true, nil
		}
		h.remove(ctx)
		if ctx.Err() != nil || errors.Is(err, errNoMarker) {
			return heldCommit{}, false, nil
		}
		if !(errors.Is(err, errAbortMarker) || errors.Is(err, errNotPreferred)) || attempt == attempts {
			return heldCommit{}, false, err
		}
	}
}

// letGo waits until the killed broker's held markers were discarded with
// its connections, removes the hold and records the heal.
func (h markerHold) letGo(ctx context.Context, env Env) {
	discarded := h.waitDiscarded(ctx)
	h.remove(ctx)
	healed(env, time.Now(), map[string]string{"action": "markers hold removed",
		"discarded_bytes": strconv.FormatInt(discarded, 10)})
}

// refreshProducers maps the producer ids of the cell's workers to their
// transactional ids.
func refreshProducers(ctx context.Context, a *admin, env Env, producers map[int64]string) {
	for _, id := range a.cellTxnIDs(ctx, env) {
		if d, err := a.describeTxn(ctx, id); err == nil {
			producers[d.ProducerID] = id
		}
	}
}

// waitDiscarded waits until no link holds anything any more (the killed
// coordinator's connections closed and toxiproxy dropped what they held),
// so that removing the hold cannot forward a dead coordinator's markers.
// It returns the bytes discarded.
func (h markerHold) waitDiscarded(ctx context.Context) int64 {
	wctx, cancel := healContext(ctx, discardWait)
	defer cancel()
	for {
		var holding, discarded int64
		for _, l := range h.links {
			st, err := h.api.kafkaToxicStatus(wctx, l, h.hold().ToxicName())
			if err != nil {
				holding++
				continue
			}
			holding += st.Holding
			discarded += st.DiscardedBytes
		}
		if holding == 0 || !sleepCtx(wctx, 100*time.Millisecond) {
			return discarded
		}
	}
}

// completion waits until the held transaction is no longer preparing its
// commit (the new coordinator wrote its markers) and says how it ended.
func completion(ctx context.Context, a *admin, commit heldCommit) map[string]string {
	wctx, cancel := healContext(ctx, completeWait)
	defer cancel()
	began := time.Now()
	attrs := map[string]string{"action": "commit completion checked", "transactional_id": commit.txnID}
	for {
		d, err := a.describeTxn(wctx, commit.txnID)
		if err == nil && d.State != "PrepareCommit" {
			attrs["txn_state"] = d.State
			attrs["producer_epoch"] = strconv.Itoa(int(d.ProducerEpoch))
			attrs["coordinator"] = strconv.Itoa(int(d.Coordinator))
			attrs["waited"] = time.Since(began).Round(time.Millisecond).String()
			return attrs
		}
		if !sleepCtx(wctx, 250*time.Millisecond) {
			attrs["txn_state"] = "still PrepareCommit (or unknown) after " + completeWait.String()
			if err != nil {
				attrs["error"] = err.Error()
			}
			return attrs
		}
	}
}
