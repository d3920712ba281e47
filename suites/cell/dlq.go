package cell

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// rowFeatures makes the cell N/A when the cluster's finalized feature
// levels are below what the row needs (Scenario.Features: the dead-letter
// queue needs share.version 2), naming the level it has.
func (r *run) rowFeatures(ctx context.Context, admin *kgo.Client) error {
	need := r.plan.Scenario.Features
	if len(need) == 0 {
		return nil
	}
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, admin)
	if err != nil {
		return fmt.Errorf("ask the finalized feature levels: %w", err)
	}
	have := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		have[f.Name] = f.MaxVersionLevel
	}
	for name, lvl := range need {
		if have[name] < lvl {
			return &notApplicable{fmt.Sprintf("the row needs %s=%d finalized; this cluster has %s=%d", name, lvl, name, have[name])}
		}
	}
	return nil
}

// setUpDLQ gives the cell's group a dead-letter topic of its own (KIP-1191):
// the topic, allowed as a DLQ by its errors.deadletterqueue.group.enable
// (Kafka rejects a DLQ topic without it, and creates none on its own by
// default), then the group's errors.deadletterqueue.topic.name and
// copy.record.enable, so each dead letter carries the input's key.
func (r *run) setUpDLQ(ctx context.Context, admin *kgo.Client) error {
	if !r.plan.Scenario.DLQ {
		return nil
	}
	t := r.topo
	cfg := map[string]*string{"min.insync.replicas": kadm.StringPtr(strconv.Itoa(t.MinISR)),
		"errors.deadletterqueue.group.enable": kadm.StringPtr("true")}
	resp, err := kadm.NewClient(admin).CreateTopic(ctx, 1, t.Replication, cfg, t.DLQTopic)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.InvalidConfig) {
		return &notApplicable{fmt.Sprintf("this Kafka does not know the topic config errors.deadletterqueue.group.enable (KIP-1191, Kafka 4.4): %v", err)}
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create dead-letter topic %s: %w", t.DLQTopic, err)
	}
	gc := map[string]string{"errors.deadletterqueue.topic.name": t.DLQTopic, "errors.deadletterqueue.copy.record.enable": "true"}
	if err := cluster.SetGroupConfigs(ctx, admin, t.Group, gc); err != nil {
		if errors.Is(err, kerr.InvalidConfig) {
			return &notApplicable{fmt.Sprintf("this Kafka does not know the group configs %s: %v", configWords(gc), err)}
		}
		return fmt.Errorf("set the group's dead-letter topic: %w", err)
	}
	return nil
}

// poison is the cell's poison rule (Scenario.PoisonEvery; nil: none), its
// offset drawn from the cell's seed.
func (r *run) poison() *ctp.Poison {
	every := r.plan.Scenario.PoisonEvery
	if every <= 0 {
		return nil
	}
	if r.poisonRule == nil {
		r.poisonRule = &ctp.Poison{Every: every, Offset: r.rng.IntN(every)}
	}
	return r.poisonRule
}

// deadLetterWait bounds the wait for the broker's dead letters after the
// drain: it writes them in the background, retrying with backoff.
const deadLetterWait = 30 * time.Second

// readDLQ reads the cell's dead-letter topic, waiting for as many records
// as the cell had poison inputs, and records what it held on the timeline
// (the row's evidence).
func (r *run) readDLQ(ctx context.Context, inputs []ctp.Input) ([]ctp.DLQRecord, error) {
	want := 0
	for _, in := range inputs {
		if r.poison().Is(in.ID) {
			want++
		}
	}
	ds, err := ctp.ReadDLQ(ctx, r.env.Cluster.Bootstrap(), r.topo.DLQTopic, want, deadLetterWait, cluster.ClientOpts(r.env.Cluster)...)
	if err != nil {
		return nil, fmt.Errorf("read dead-letter topic: %w", err)
	}
	_ = r.timeline.Record(history.Event{Type: history.Info, F: history.FDeadLetters, Attrs: map[string]string{
		"topic": r.topo.DLQTopic, "records": strconv.Itoa(len(ds)), "poison": strconv.Itoa(want)}})
	return ds, nil
}
