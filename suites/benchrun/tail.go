package benchrun

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// txnKey names one worker transaction: the worker and txn headers of its
// outputs.
type txnKey struct {
	worker string
	seq    int64
}

// visible is when a transaction's outputs were first seen by the tail reader,
// and how many.
type visible struct {
	at      time.Time
	records int
}

// tailReader follows a run's output topic read_committed from the start and
// notes when each transaction's outputs become visible: the end of
// e2e_latency. It runs in the orchestrator, beside the workers, so it sees
// outputs the way any downstream read_committed consumer would; the time a
// fetch takes to return (at most tailMaxWait when nothing arrives) is part of
// the figure.
type tailReader struct {
	cl *kgo.Client

	mu   sync.Mutex
	seen map[txnKey]*visible
	// records counts every output seen.
	records int64

	stop context.CancelFunc
	done chan struct{}
}

// tailMaxWait bounds one fetch's wait: the broker answers at once when data
// is there, so this only matters when nothing is.
const tailMaxWait = 50 * time.Millisecond

func startTailReader(ctx context.Context, c cluster.Cluster, topic string) (*tailReader, error) {
	cl, err := cluster.NewClient(c,
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(tailMaxWait),
		kgo.ClientID("sharechaos-bench-tail"))
	if err != nil {
		return nil, fmt.Errorf("start tail reader: %w", err)
	}
	t := &tailReader{cl: cl, seen: map[txnKey]*visible{}, done: make(chan struct{})}
	ctx, t.stop = context.WithCancel(ctx)
	go t.loop(ctx)
	return t, nil
}

func (t *tailReader) loop(ctx context.Context) {
	defer close(t.done)
	for ctx.Err() == nil {
		fs := t.cl.PollFetches(ctx)
		at := time.Now()
		t.mu.Lock()
		fs.EachRecord(func(r *kgo.Record) {
			t.records++
			k := txnKey{}
			for _, h := range r.Headers {
				switch h.Key {
				case ctp.HeaderWorker:
					k.worker = string(h.Value)
				case ctp.HeaderTxn:
					k.seq, _ = strconv.ParseInt(string(h.Value), 10, 64)
				}
			}
			v := t.seen[k]
			if v == nil {
				v = &visible{at: at}
				t.seen[k] = v
			}
			v.records++
		})
		t.mu.Unlock()
	}
}

// waitFor waits until every transaction of want has been seen, or until
// timeout; it returns how many were not.
func (t *tailReader) waitFor(ctx context.Context, want map[txnKey]time.Time, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		missing := 0
		t.mu.Lock()
		for k := range want {
			if _, ok := t.seen[k]; !ok {
				missing++
			}
		}
		t.mu.Unlock()
		if missing == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return missing
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// visibleOf returns what was seen of k.
func (t *tailReader) visibleOf(k txnKey) (visible, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.seen[k]
	if !ok {
		return visible{}, false
	}
	return *v, true
}

func (t *tailReader) close() {
	t.stop()
	<-t.done
	t.cl.Close()
}
