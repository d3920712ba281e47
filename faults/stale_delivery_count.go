package faults

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// PointStaleCountWrite is where staleDeliveryCountWrite fires: the
// persister's resent state write reached the share coordinator at the
// stored start offset with a delivery-complete count below the stored one.
const PointStaleCountWrite = "stale-delivery-count-write"

// Bounds of the pin.
const (
	// pinPollWait bounds the fault's member's poll for records to hold.
	pinPollWait = 20 * time.Second
	// pinnedWait bounds the wait for the stored start offset to reach the
	// held records (the records below them acknowledged and written).
	pinnedWait = 10 * time.Second
)

// staleDeliveryCountWrite makes apache/kafka #23112's stale state write
// happen: the resent write lands at the stored start offset, with the
// delivery-complete count (KIP-1226) of its making, below the stored one.
// Kafka 4.2 and 4.3 take the written count as given, so the lag that
// DescribeShareGroupOffsets reports rises with no new input; 4.4.0 keeps the
// higher count when the start offsets are equal.
//
// The start offset must not move while the resend waits (else it is #23074's
// case): a member of the fault's own joins the cell's share group, takes
// one batch and holds it, unacknowledged, so the start offset stops at that
// batch while the workers go on above it. Then, as staleStateWrite does,
// the first write above the start offset is reset, its resend held, the
// stored state read (the resend must carry the stored start offset and a
// lower count, else the attempt is let go), and the resend let through
// alone with the leader's next write held; the stored state is read again.
// The member closes, releasing its batch to the workers (delivery 2), and
// the held writes go.
func staleDeliveryCountWrite(ctx context.Context, env Env) error {
	t, ended, err := prepareStaleWrite(ctx, env)
	if t != nil {
		defer t.close(ctx)
	}
	if ended || err != nil {
		return err
	}
	pin, pinned, why, err := holdABatch(ctx, env, t)
	if pin != nil {
		defer pin.Close()
	}
	if err != nil {
		return err
	}
	if why != "" {
		prepared(env, time.Now(), map[string]string{"action": "the start offset could not be pinned", "why": why})
		return nil
	}
	s := t.write
	s.accept = func(before shareRead) (bool, string) {
		switch {
		case before.lag < 0:
			return false, "the broker reports no lag, so no delivery-complete count to compare"
		case before.start != s.stale.StartOffset:
			return false, fmt.Sprintf("the stored start offset %d is not the resend's %d", before.start, s.stale.StartOffset)
		case s.stale.DeliveryCompleteCount < 0:
			return false, "the resend carries no delivery-complete count (WriteShareGroupState v0)"
		case before.deliveryComplete() <= int64(s.stale.DeliveryCompleteCount):
			return false, fmt.Sprintf("the stored delivery-complete count %d is not above the resend's %d", before.deliveryComplete(), s.stale.DeliveryCompleteCount)
		}
		return true, ""
	}
	landed, err := t.landOneOf(ctx, env)
	if !landed || err != nil {
		return err
	}
	attrs := t.firingAttrs()
	attrs["pinned_at"] = strconv.FormatInt(pinned, 10)
	fired(env, PointStaleCountWrite, time.Now(), attrs)
	pin.Close()
	s.removeAll(ctx)
	healed(env, time.Now(), map[string]string{"action": "the fault's member closed (its batch released), the held state writes let go", "link": s.link})
	return nil
}

// holdABatch joins the cell's share group with a member of the fault's
// own, takes one batch of the input partition and holds it, and waits until
// the stored start offset reached it: pinned is the batch's first offset.
// why says why no batch was pinned (the fault does not fire).
func holdABatch(ctx context.Context, env Env, t *staleTarget) (cl *kgo.Client, pinned int64, why string, err error) {
	topo := env.Topology
	cl, err = cluster.NewClient(env.Cluster, kgo.ClientID("sharechaos-fault-pin"), kgo.ShareGroup(topo.Group),
		kgo.ConsumeTopics(topo.InputTopic), kgo.ShareMaxRecords(10), kgo.ShareMaxRecordsStrict(),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		return nil, 0, "", fmt.Errorf("stale delivery count: pin: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, pinPollWait)
	defer cancel()
	first := int64(-1)
	for first < 0 && pctx.Err() == nil {
		fs := cl.PollFetches(pctx)
		fs.EachRecord(func(r *kgo.Record) {
			if r.Partition == t.write.partition && (first < 0 || r.Offset < first) {
				first = r.Offset
			}
		})
	}
	if first < 0 {
		return cl, 0, fmt.Sprintf("the fault's member got no record of %s within %s", t.input, pinPollWait), nil
	}
	began := time.Now()
	wctx, wcancel := context.WithTimeout(ctx, pinnedWait)
	defer wcancel()
	for {
		r, known, err := t.write.readOffsets(wctx, env, t.a, topo)
		if err == nil && known && r.start == first {
			prepared(env, began, map[string]string{"action": "a member of the fault's own holds a batch, so the share start offset stops there",
				"pinned_at": strconv.FormatInt(first, 10), "partition": t.input})
			return cl, first, "", nil
		}
		if !sleepCtx(wctx, 250*time.Millisecond) {
			return cl, 0, fmt.Sprintf("the stored start offset did not reach the held batch at %d within %s (last read %d)", first, pinnedWait, r.start), ctx.Err()
		}
	}
}
