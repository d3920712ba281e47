package ctp

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Teardown deletes what Setup created: the input, output and ledger topics
// and the share group (its group configs go with it), so a run leaves a
// long-lived cluster as it found it. What was already gone is not an error.
//
// Transactional ids cannot be deleted: Kafka has no API for it. A finished
// id is forgotten by the broker after transactional.id.expiration.ms (a
// broker-wide setting, 7 days by default); the suite's ids are named after
// the run (Topology.TransactionalID), so they never collide with a user's.
func Teardown(ctx context.Context, cl *kgo.Client, t Topology) error {
	return errors.Join(DeleteTopicsOf(ctx, cl, t), DeleteGroupOf(ctx, cl, t))
}

// DeleteTopicsOf deletes the topology's topics (Teardown's first half).
func DeleteTopicsOf(ctx context.Context, cl *kgo.Client, t Topology) error {
	adm := kadm.NewClient(cl)
	var errs []error
	// The dead-letter topic exists only for a row that has one: absent,
	// its deletion answers UNKNOWN_TOPIC_OR_PARTITION, not an error here.
	rs, err := adm.DeleteTopics(ctx, t.InputTopic, t.OutputTopic, t.LedgerTopic, t.DLQTopic)
	if err != nil {
		errs = append(errs, fmt.Errorf("delete topics of %s: %w", t.Prefix, err))
	}
	for _, r := range rs {
		if r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			errs = append(errs, fmt.Errorf("delete topic %s: %w", r.Topic, r.Err))
		}
	}
	return errors.Join(errs...)
}

// DeleteGroupOf deletes the topology's share group (Teardown's second half).
func DeleteGroupOf(ctx context.Context, cl *kgo.Client, t Topology) error {
	gr, err := kadm.NewClient(cl).DeleteGroup(ctx, t.Group)
	if err == nil {
		err = gr.Err
	}
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		return fmt.Errorf("delete share group %s: %w", t.Group, err)
	}
	return nil
}
