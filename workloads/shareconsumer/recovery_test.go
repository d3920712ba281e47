package shareconsumer

import (
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A broker that answers INVALID_SHARE_SESSION_EPOCH (as after a restart, or
// when two requests raced on one session) makes the consumer reopen the
// session at epoch 0 in the same Poll, and consumption goes on exactly once.
func TestKfakeSessionEpochErrorReopens(t *testing.T) {
	ctx := clustertest.Context(t, 2*time.Minute)
	cl := startKfakeCluster(t, 1)
	f := newFixture(t, ctx, cl.ListenAddrs(), 1, 1)
	f.produce(t, ctx, 0, 50)

	var injected atomic.Bool
	var epochs []int32
	cl.ControlKey(78, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		cl.KeepControl()
		req := kreq.(*kmsg.ShareFetchRequest)
		epochs = append(epochs, req.ShareSessionEpoch)
		if req.ShareSessionEpoch >= 3 && injected.CompareAndSwap(false, true) {
			resp := req.ResponseKind().(*kmsg.ShareFetchResponse)
			resp.ErrorCode = kerr.InvalidShareSessionEpoch.Code
			return resp, nil, true
		}
		return nil, nil, false
	})
	consumeAll(t, ctx, f, 1, 50)
	if !injected.Load() {
		t.Fatal("the session error was never injected")
	}
	reopened := false
	for i := 1; i < len(epochs); i++ {
		if epochs[i-1] >= 3 && epochs[i] == 0 {
			reopened = true
		}
	}
	if !reopened {
		t.Errorf("no epoch-0 fetch after the injected error; epochs %v", epochs)
	}
}

// A fenced member (FENCED_MEMBER_EPOCH on a heartbeat) rejoins with the same
// member id at epoch 0 and gets a new epoch and its assignment back.
func TestKfakeFencedMemberRejoins(t *testing.T) {
	ctx := clustertest.Context(t, 2*time.Minute)
	cl := startKfakeCluster(t, 1)
	f := newFixture(t, ctx, cl.ListenAddrs(), 1, 1)
	f.produce(t, ctx, 0, 30)
	c := f.consumer(t, ctx, 10)
	id := c.MemberID()

	var fenced, rejoined atomic.Bool
	cl.ControlKey(76, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		cl.KeepControl()
		req := kreq.(*kmsg.ShareGroupHeartbeatRequest)
		if req.MemberEpoch > 0 && fenced.CompareAndSwap(false, true) {
			resp := req.ResponseKind().(*kmsg.ShareGroupHeartbeatResponse)
			resp.ErrorCode = kerr.FencedMemberEpoch.Code
			return resp, nil, true
		}
		if fenced.Load() && req.MemberEpoch == 0 {
			if req.MemberID != id {
				t.Errorf("rejoined as %q, want the same member id %q", req.MemberID, id)
			}
			rejoined.Store(true)
		}
		return nil, nil, false
	})
	l := newLedger()
	pollUntil(t, ctx, c, 30*time.Second, func(recs []*Record) bool {
		l.add(recs)
		accept(t, ctx, c, recs)
		return l.distinct() == 30 && rejoined.Load() && c.MemberEpoch() > 0
	})
	f.waitDrained(t, ctx)
}

// A partition whose leader moves is forgotten in the old broker's session
// and added to the new leader's after NOT_LEADER_OR_FOLLOWER refreshes the
// metadata; consumption finishes exactly once. (kfake keeps a partition's
// share state across the move, so records acked before it stay acked.)
func TestKfakeLeaderMove(t *testing.T) {
	ctx := clustertest.Context(t, 2*time.Minute)
	cl := startKfakeCluster(t, 3)
	f := newFixture(t, ctx, cl.ListenAddrs(), 1, 3)
	f.produce(t, ctx, 0, 100)
	c := f.consumer(t, ctx, 10)
	l := newLedger()
	moved := false
	from := cl.LeaderFor(f.topic, 0)
	pollUntil(t, ctx, c, 30*time.Second, func(recs []*Record) bool {
		l.add(recs)
		accept(t, ctx, c, recs)
		if !moved && l.distinct() >= 30 {
			if err := cl.MoveTopicPartition(f.topic, 0, (from+1)%3); err != nil {
				t.Fatalf("move leader: %v", err)
			}
			moved = true
		}
		return l.distinct() == 100
	})
	var fromNew int
	for _, rs := range l.delivered {
		if len(rs) != 1 {
			t.Errorf("%s delivered %d times", rs[0].Value, len(rs))
		}
		if rs[0].Broker == (from+1)%3 {
			fromNew++
		}
	}
	if fromNew == 0 {
		t.Errorf("no record came from the new leader %d", (from+1)%3)
	}
	f.waitDrained(t, ctx)
}
