// Package scsource runs the CTP loop on our share consumer
// (workloads/shareconsumer), which never acknowledges on its own: the
// ctp.ShareSource for ctp.ConsumerSharechaos.
package scsource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/shareconsumer"
)

var _ ctp.OpenShareSource = Open

// scSource is our share consumer (workloads/shareconsumer), which never acks
// on its own. In implicit mode it does what kgo's does, so that the two
// consumers are comparable: the next poll first ACCEPTs whatever of the
// previous poll the loop did not settle.
type scSource struct {
	c        *shareconsumer.Consumer
	implicit bool
	// unsettled is the previous poll's records the loop did not ack
	// (implicit mode only).
	unsettled map[*kgo.Record]struct{}
}

// scRecordKey keys the shareconsumer record inside the kgo record's Context.
type scRecordKey struct{}

func acquiredBy(r *kgo.Record) *shareconsumer.Record {
	if r.Context == nil {
		return nil
	}
	sr, _ := r.Context.Value(scRecordKey{}).(*shareconsumer.Record)
	return sr
}

// Open opens the share consumer of a worker (ctp.OpenShareSource).
func Open(ctx context.Context, cfg ctp.WorkerConfig) (ctp.ShareSource, error) {
	secure, err := cfg.Client.Opts()
	if err != nil {
		return nil, fmt.Errorf("create share consumer: %w", err)
	}
	c, err := shareconsumer.New(ctx, shareconsumer.Config{
		Bootstrap:  cfg.Bootstrap,
		Group:      cfg.Group,
		Topics:     []string{cfg.InputTopic},
		MaxRecords: cfg.MaxRecords,
		// Every leader at once: a transaction's acks span share-partitions
		// whenever several leaders have records (shareconsumer's spread.go).
		Spread: true,
		// As kgo's FetchMaxWait above: a broker with nothing long-polls.
		MaxWait:        100 * time.Millisecond,
		RequestTimeout: cfg.RequestTimeout.D(),
		ClientOpts:     append([]kgo.Opt{kgo.ClientID("sharechaos-" + cfg.Name())}, secure...),
	})
	if err != nil {
		return nil, fmt.Errorf("create share consumer: %w", err)
	}
	waitAssigned(ctx, c, assignmentWait)
	return &scSource{c: c, implicit: cfg.Mode == ctp.Implicit, unsettled: map[*kgo.Record]struct{}{}}, nil
}

func (s *scSource) Poll(ctx context.Context, max int) []*kgo.Record {
	if s.implicit && len(s.unsettled) > 0 {
		prev := make([]*kgo.Record, 0, len(s.unsettled))
		for r := range s.unsettled {
			prev = append(prev, r)
		}
		// As kgo's: the implicit accept is not the loop's step, and its
		// failure is nobody's to report (the records come back by lock
		// expiry).
		_, _ = s.Ack(context.WithoutCancel(ctx), kgo.AckAccept, prev)
		clear(s.unsettled)
	}
	got, err := s.c.Poll(ctx)
	if err != nil && len(got) == 0 && ctx.Err() == nil {
		// A failed fetch (a moved leader, a reset session) comes back at
		// once: do not spin on it.
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(got) > max {
		// Cannot happen with the record limit asked for; kept honest anyway:
		// the rest stay acquired until their locks expire.
		got = got[:max]
	}
	batch := make([]*kgo.Record, len(got))
	for i, sr := range got {
		r := &kgo.Record{Topic: sr.Topic, Partition: sr.Partition, Offset: sr.Offset, Key: sr.Key, Value: sr.Value,
			Timestamp: sr.Timestamp, LeaderEpoch: sr.LeaderEpoch, ProducerID: sr.ProducerID, ProducerEpoch: sr.ProducerEpoch,
			Context: context.WithValue(ctp.WithDeliveryCount(context.Background(), int32(sr.DeliveryCount)), scRecordKey{}, sr)}
		for _, h := range sr.Headers {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
		batch[i] = r
		if s.implicit {
			s.unsettled[r] = struct{}{}
		}
	}
	return batch
}

var ackTypes = map[kgo.AckStatus]shareconsumer.AckType{
	kgo.AckAccept: shareconsumer.Accept, kgo.AckRelease: shareconsumer.Release,
	kgo.AckReject: shareconsumer.Reject, kgo.AckRenew: shareconsumer.Renew,
}

func (s *scSource) Ack(ctx context.Context, status kgo.AckStatus, batch []*kgo.Record) ([]string, error) {
	t, ok := ackTypes[status]
	if !ok {
		return nil, fmt.Errorf("acknowledge: status %v has no share ack type", status)
	}
	recs := make([]*shareconsumer.Record, 0, len(batch))
	for _, r := range batch {
		sr := acquiredBy(r)
		if sr == nil {
			return nil, errors.New("acknowledge: a record our share consumer did not acquire")
		}
		recs = append(recs, sr)
		delete(s.unsettled, r)
	}
	results, err := s.c.Acknowledge(ctx, shareconsumer.AckRecords(t, recs...))
	if results == nil && err != nil {
		return nil, err
	}
	var rejected []string
	for _, r := range results {
		if r.Err != nil {
			rejected = append(rejected, fmt.Sprintf("%s/%d: %v", r.Topic, r.Partition, r.Err))
		}
	}
	return rejected, nil
}

func (s *scSource) Member() (string, int32) { return s.c.MemberID(), s.c.MemberEpoch() }
func (s *scSource) Client() *kgo.Client     { return nil }

// close closes the share sessions and leaves the group: the broker releases
// what the member still held (implicit mode: as kgo's Close, the last poll
// is released, not accepted).
func (s *scSource) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.c.Close(ctx)
}

// assignmentWait bounds how long Open waits for the member's first
// assignment.
const assignmentWait = 5 * time.Second

// waitAssigned returns once c has partitions, or after d. New returns when
// the coordinator has accepted the member, whose assignment often comes only
// with the next heartbeat (a heartbeat interval later); kgo's consumer starts
// fetching as soon as it has one. Without the wait a worker joins a cell one
// interval after the others, and a short cell drains before it ever polls,
// so a fault armed in it never fires.
func waitAssigned(ctx context.Context, c *shareconsumer.Consumer, d time.Duration) {
	deadline := time.Now().Add(d)
	for len(c.Assignment()) == 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
}
