package ctp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ShareProgress reads the share group's start offset, as the suite judges
// by it (ShareOffsets.Start), and the end offset of every input partition. A
// partition the group has not touched yet is absent from start.
func ShareProgress(ctx context.Context, cl *kgo.Client, group, topic string) (start, end map[int32]int64, err error) {
	o, err := ReadShareOffsets(ctx, cl, group, topic)
	return o.Start, o.End, err
}

// RuleLagZeroIsDone names the one rule by which the suite reads a share
// start offset other than Kafka reported it: a partition whose lag
// (KIP-1226) is 0 is done up to its end offset. Kafka 4.2 persists, and so
// reports, the start offset of the share-partition's last state write,
// which can stay behind its real one while the partition is idle: 240 of
// 250 after the last batch was acknowledged, 110 of 250 after faults, both
// with lag 0 (docs/FINDINGS.md 4 and 13). The lag is exact.
const RuleLagZeroIsDone = "lag-0-is-done"

// ShareOffsets is the share group's progress on one topic.
type ShareOffsets struct {
	// Reported is each partition's start offset as DescribeShareGroupOffsets
	// reported it.
	Reported map[int32]int64
	// Start is the start offset the suite judges by: Reported, or the end
	// offset where a rule (Rule) says the partition is done.
	Start map[int32]int64
	// Rule names, for each partition whose Start is not its Reported, the
	// rule that moved it (RuleLagZeroIsDone).
	Rule map[int32]string
	// End is each partition's end offset (high watermark).
	End map[int32]int64
	// Lag is each partition's lag as reported (-1: the broker did not say).
	Lag map[int32]int64
}

// ReadShareOffsets reads the share group's start offsets, as reported and as
// judged, and the end offset of every input partition. Start and Reported
// are nil when the offsets could not be read; a partition the group has not
// touched yet is absent from both.
func ReadShareOffsets(ctx context.Context, cl *kgo.Client, group, topic string) (ShareOffsets, error) {
	var o ShareOffsets
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return o, fmt.Errorf("list end offsets of %s: %w", topic, err)
	}
	o.End = map[int32]int64{}
	ends.Each(func(lo kadm.ListedOffset) { o.End[lo.Partition] = lo.Offset })
	described, err := adm.DescribeShareGroupOffsets(ctx, group)
	if err != nil {
		return o, fmt.Errorf("describe share group offsets of %s: %w", group, err)
	}
	o.Start, o.Reported, o.Rule, o.Lag = map[int32]int64{}, map[int32]int64{}, map[int32]string{}, map[int32]int64{}
	d, ok := described[group]
	if !ok {
		return o, nil
	}
	if d.Err != nil {
		o.Start, o.Reported, o.Rule = nil, nil, nil
		return o, fmt.Errorf("describe share group offsets of %s: %w", group, d.Err)
	}
	for p, so := range d.Offsets[topic] {
		if so.Err != nil || so.StartOffset < 0 {
			continue
		}
		o.Reported[p] = so.StartOffset
		o.Start[p] = so.StartOffset
		o.Lag[p] = so.Lag
		if so.Lag == 0 && o.End[p] > so.StartOffset {
			o.Start[p] = o.End[p]
			o.Rule[p] = RuleLagZeroIsDone
		}
	}
	return o, nil
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
// partition is not yet at its end (a variable only so that a test of the
// stall need not wait a minute).
var readStall = 60 * time.Second

// EachRecord calls f with every record of topic from the start to the end
// offsets listed when it begins, as the fetches bring them, so a large
// read-back can be streamed to disk (workloads/ctp/check/large) instead of
// held. readCommitted selects the isolation level. The end is found by
// position, not by seeing offset end-1 (which may be a control record): a
// partition is done once a fetch reports a stable offset at or past its end,
// or a probe of its tail finds nothing visible left (tail_probe.go), and the
// client has gone quiet. It gives up after readStall without
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
	starts := map[int32]kgo.Offset{}
	pos := map[int32]int64{} // the offset after the last record read
	for p := range want {
		starts[p] = kgo.NewOffset().AtStart()
	}
	opts := []kgo.Opt{kgo.SeedBrokers(bootstrap...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
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
	fetchErr := map[int32]error{}              // each partition's last fetch error
	quietSince := time.Now()
	var probed time.Time
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
			if p.Err != nil {
				fetchErr[p.Partition] = p.Err
			}
			if p.Err != nil || ferr != nil {
				return
			}
			lastSeen[p.Partition] = p.FetchPartition
			if p.LastStableOffset >= want[p.Partition] || (!readCommitted && p.HighWatermark >= want[p.Partition]) {
				stable[p.Partition] = true
			}
			for _, r := range p.Records {
				pos[p.Partition] = r.Offset + 1
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
		if time.Since(quietSince) > tailProbeAfter && time.Since(probed) > tailProbeAfter {
			// A tail of aborted and control records never reaches the
			// client's fetches (tail_probe.go): ask the broker directly.
			probed = time.Now()
			for p, done := range invisibleTails(ctx, cl, topic, pos, want, stable, readCommitted) {
				if done {
					stable[p] = true
				}
			}
			continue
		}
		if time.Since(quietSince) > readStall {
			// A partition whose fetches failed (or never came back) was not
			// seen: ask the brokers for the offsets of every partition short
			// of its end, so a hanging transaction is told from a stall of
			// another cause, and the error says what each partition showed.
			askOffsets(ctx, cl, topic, want, stable, lastSeen)
			if h := hangingOf(topic, want, stable, lastSeen, readCommitted); h != nil {
				return h
			}
			return fmt.Errorf("read topic %s: not at its end, nothing read for %s (%d of %d partitions stable; %s)",
				topic, readStall, len(stable), len(want), unstableWords(want, stable, lastSeen, fetchErr))
		}
	}
}

// unstableWords says of each partition short of its end what the read-back
// last knew of it: its end, high watermark and stable offset, and its last
// fetch error.
func unstableWords(want map[int32]int64, stable map[int32]bool, seen map[int32]kgo.FetchPartition, fetchErr map[int32]error) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if stable[p] {
			continue
		}
		w := fmt.Sprintf("partition %d: end %d", p, want[p])
		if f, ok := seen[p]; ok {
			w += fmt.Sprintf(", high watermark %d, stable to %d", f.HighWatermark, f.LastStableOffset)
		} else {
			w += ", offsets unknown"
		}
		if err := fetchErr[p]; err != nil {
			w += ", fetch error " + err.Error()
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, "; ")
}

// askOffsets puts each unstable partition's high watermark and last stable
// offset, as the brokers list them now, into seen (a partition they do not
// answer for keeps what the fetches said).
func askOffsets(ctx context.Context, cl *kgo.Client, topic string, want map[int32]int64, stable map[int32]bool, seen map[int32]kgo.FetchPartition) {
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(actx, topic)
	if err != nil {
		return
	}
	lsos, err := adm.ListCommittedOffsets(actx, topic)
	if err != nil {
		return
	}
	for p := range want {
		if stable[p] {
			continue
		}
		end, eok := ends.Lookup(topic, p)
		lso, lok := lsos.Lookup(topic, p)
		if !eok || !lok || end.Err != nil || lso.Err != nil {
			continue
		}
		f := seen[p]
		f.HighWatermark, f.LastStableOffset = end.Offset, lso.Offset
		seen[p] = f
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
