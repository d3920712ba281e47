package ctp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ShareProgress reads the share group's start offset and the end offset of
// every input partition. A partition the group has not touched yet is absent
// from start.
func ShareProgress(ctx context.Context, cl *kgo.Client, group, topic string) (start, end map[int32]int64, err error) {
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, nil, fmt.Errorf("list end offsets of %s: %w", topic, err)
	}
	end = map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { end[o.Partition] = o.Offset })
	described, err := adm.DescribeShareGroupOffsets(ctx, group)
	if err != nil {
		return nil, end, fmt.Errorf("describe share group offsets of %s: %w", group, err)
	}
	start = map[int32]int64{}
	d, ok := described[group]
	if !ok {
		return start, end, nil
	}
	if d.Err != nil {
		return nil, end, fmt.Errorf("describe share group offsets of %s: %w", group, d.Err)
	}
	for p, so := range d.Offsets[topic] {
		if so.Err != nil || so.StartOffset < 0 {
			continue
		}
		start[p] = so.StartOffset
		// Kafka 4.2 reports the start offset one acknowledged batch late when
		// that batch ends at the log end (seen: start 20, lag 0 after all 30
		// records of a partition were accepted, and it stays so while idle).
		// Its lag (KIP-1226; 0 means nothing left to deliver or acknowledge)
		// is exact, so a partition with lag 0 is done up to its end offset.
		if so.Lag == 0 && end[p] > so.StartOffset {
			start[p] = end[p]
		}
	}
	return start, end, nil
}

// Drained reports whether every input partition's share start offset has
// reached its end offset: the share group is done with every record.
func Drained(start, end map[int32]int64) bool {
	for p, e := range end {
		if e == 0 {
			continue
		}
		if s, ok := start[p]; !ok || s < e {
			return false
		}
	}
	return true
}

// ReadTopic reads every record of topic from the start to the end offsets
// listed when it begins (EachRecord), into memory.
func ReadTopic(ctx context.Context, bootstrap []string, topic string, readCommitted bool, extra ...kgo.Opt) ([]*kgo.Record, error) {
	var out []*kgo.Record
	err := EachRecord(ctx, bootstrap, topic, readCommitted, func(r *kgo.Record) error {
		out = append(out, r)
		return nil
	}, extra...)
	return out, err
}

// readStall bounds how long a read-back waits without a record while some
// partition is not yet at its end.
const readStall = 60 * time.Second

// EachRecord calls f with every record of topic from the start to the end
// offsets listed when it begins, as the fetches bring them, so a large
// read-back can be streamed to disk (workloads/ctp/check/large) instead of
// held. readCommitted selects the isolation level. The end is found by
// position, not by seeing offset end-1 (which may be a control record): a
// partition is done once a fetch reports a stable offset at or past its end
// and the client has gone quiet. It gives up after readStall without
// progress (not after a fixed time: 10 million outputs take minutes). extra
// are the cluster's client settings (TLS, SASL).
func EachRecord(ctx context.Context, bootstrap []string, topic string, readCommitted bool, f func(*kgo.Record) error, extra ...kgo.Opt) error {
	adm, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...)}, extra...)...)
	if err != nil {
		return fmt.Errorf("read topic %s: %w", topic, err)
	}
	ends, err := kadm.NewClient(adm).ListEndOffsets(ctx, topic)
	adm.Close()
	if err != nil {
		return fmt.Errorf("read topic %s: list end offsets: %w", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	if len(want) == 0 {
		return nil
	}
	parts := map[int32]kgo.Offset{}
	for p := range want {
		parts[p] = kgo.NewOffset().AtStart()
	}
	opts := []kgo.Opt{kgo.SeedBrokers(bootstrap...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: parts}),
		kgo.FetchMaxWait(200 * time.Millisecond)}
	opts = append(opts, extra...)
	if readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("read topic %s: %w", topic, err)
	}
	defer cl.Close()

	stable := map[int32]bool{}
	lastSeen := map[int32]kgo.FetchPartition{} // each partition's offsets as last fetched
	quietSince := time.Now()
	for {
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		got := 0
		var ferr error
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			if p.Err != nil || ferr != nil {
				return
			}
			lastSeen[p.Partition] = p.FetchPartition
			if p.LastStableOffset >= want[p.Partition] || (!readCommitted && p.HighWatermark >= want[p.Partition]) {
				stable[p.Partition] = true
			}
			for _, r := range p.Records {
				if r.Offset >= want[p.Partition]-1 {
					stable[p.Partition] = true
				}
				if ferr = f(r); ferr != nil {
					return
				}
				got++
			}
		})
		if ferr != nil {
			return fmt.Errorf("read topic %s: %w", topic, ferr)
		}
		if got > 0 {
			quietSince = time.Now()
		}
		if len(stable) == len(want) && time.Since(quietSince) > 700*time.Millisecond {
			return nil
		}
		if time.Since(quietSince) > readStall {
			if h := hangingOf(topic, want, stable, lastSeen, readCommitted); h != nil {
				return h
			}
			return fmt.Errorf("read topic %s: not at its end, nothing read for %s (%d of %d partitions stable)", topic, readStall, len(stable), len(want))
		}
	}
}

// ReadInputs reads the seeded input records back; extra are the cluster's
// client settings (TLS, SASL).
func ReadInputs(ctx context.Context, bootstrap []string, topic string, extra ...kgo.Opt) ([]Input, error) {
	rs, err := ReadTopic(ctx, bootstrap, topic, false, extra...)
	if err != nil {
		return nil, err
	}
	in := make([]Input, len(rs))
	for i, r := range rs {
		in[i] = Input{ID: string(r.Key), Partition: r.Partition, Offset: r.Offset}
	}
	return in, nil
}

// ReadOutputs reads every output visible to a read_committed consumer. With
// a *HangingError it returns the outputs read up to the stuck offsets too.
func ReadOutputs(ctx context.Context, bootstrap []string, topic string, extra ...kgo.Opt) ([]Output, error) {
	rs, err := ReadTopic(ctx, bootstrap, topic, true, extra...)
	var hanging *HangingError
	if err != nil && !errors.As(err, &hanging) {
		return nil, err
	}
	out := make([]Output, len(rs))
	for i, r := range rs {
		out[i] = OutputOf(r)
	}
	return out, err
}

// OutputOf is the output an output-topic record is.
func OutputOf(r *kgo.Record) Output {
	o := Output{Key: string(r.Key), Value: string(r.Value), Partition: r.Partition, Offset: r.Offset}
	for _, h := range r.Headers {
		switch h.Key {
		case HeaderSrc:
			o.Src = string(h.Value)
		case HeaderWorker:
			o.Worker = string(h.Value)
		case HeaderTxn:
			o.Txn, _ = strconv.ParseInt(string(h.Value), 10, 64)
		}
	}
	return o
}
