package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// The two requests carrying several share-partitions at once, each
// share-partition's answer checked on its own: a broker must answer every
// share-partition asked, once, and nothing else.

func (r *rpc) addShareAcksToTxnParts(ctx context.Context, p producer, group string, parts []SharePart) error {
	node, err := r.findCoordinator(ctx, 1, p.txnID)
	if err != nil {
		return err
	}
	req := &wire.AddShareAcksToTxnRequest{APIKey: r.keys.AddShareAcksToTxn, TransactionalID: p.txnID,
		ProducerID: p.id, ProducerEpoch: p.epoch, GroupID: group}
	for _, topic := range uniqueTopics(parts) {
		t := wire.AddShareAcksToTxnRequestTopic{Topic: topic}
		for _, sp := range parts {
			if sp.Topic == topic {
				t.Partitions = append(t.Partitions, sp.Partition)
			}
		}
		req.Topics = append(req.Topics, t)
	}
	for {
		resp, err := req.RequestWith(ctx, r.cl.Broker(int(node)))
		if err != nil {
			r.log.add(describeAdd(node, req), "no answer: "+err.Error())
			return fmt.Errorf("AddShareAcksToTxn: %w", err)
		}
		err = kerr.ErrorForCode(resp.ErrorCode)
		r.log.add(describeAdd(node, req), answerWords(err))
		if !errors.Is(err, kerr.ConcurrentTransactions) {
			return err
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// ErrNotOneBroker: a shape's share-partitions route to several brokers (v0's
// share coordinators are hashed), so no one request can carry them; the
// case cannot be run on this cluster, which is not the broker's fault.
var ErrNotOneBroker = errors.New("one request cannot carry the share-partitions")

// txnShareAcknowledgeParts sends one TxnShareAcknowledge with every
// share-partition of acks (ids: the topics' ids) and returns each one's
// answer. The share-partitions must route to one broker: a case's shape is
// built so (one broker's partitions), and a shape that is not is the case's
// error, not the broker's.
func (r *rpc) txnShareAcknowledgeParts(ctx context.Context, p producer, group string, ids map[string][16]byte,
	acks []PartAcks, tags memberTags) (answers map[SharePart]error, err error) {
	node := int32(-1)
	for _, pa := range acks {
		id, ok := ids[pa.Part.Topic]
		if !ok {
			return nil, fmt.Errorf("no topic id for %s", pa.Part.Topic)
		}
		var n int32
		var err error
		if r.version == wire.TxnShareAcknowledgeToLeader {
			n, err = r.leader(ctx, pa.Part.Topic, pa.Part.Partition)
		} else {
			n, err = r.findCoordinator(ctx, 2, kip1289.ShareCoordinatorKey(group, id, pa.Part.Partition))
		}
		if err != nil {
			return nil, err
		}
		if node >= 0 && n != node {
			return nil, fmt.Errorf("%w: the case's share-partitions route to brokers %d and %d", ErrNotOneBroker, node, n)
		}
		node = n
	}
	req := &wire.TxnShareAcknowledgeRequest{APIKey: r.keys.TxnShareAcknowledge, GroupID: group,
		TransactionalID: p.txnID, ProducerID: p.id, ProducerEpoch: p.epoch, MemberID: tags.id, MemberEpoch: tags.epoch}
	topicOf := map[[16]byte]string{}
	for _, topic := range uniqueTopics(partsOf(acks)) {
		t := wire.TxnShareAcknowledgeRequestTopic{TopicID: ids[topic]}
		for _, pa := range acks {
			if pa.Part.Topic == topic {
				t.Partitions = append(t.Partitions, wire.TxnShareAcknowledgeRequestPartition{Partition: pa.Part.Partition,
					AcknowledgementBatches: pa.Batches})
			}
		}
		req.Topics = append(req.Topics, t)
		topicOf[ids[topic]] = topic
	}
	sent := describeAck(node, r.version, req, func(id [16]byte) string { return topicOf[id] })
	resp, err := req.RequestWith(ctx, r.cl.Broker(int(node)))
	if err != nil {
		r.log.add(sent, "no answer: "+err.Error())
		return nil, fmt.Errorf("TxnShareAcknowledge: %w", err)
	}
	defer func() { r.log.add(sent, answersWords(answers, acks)) }()
	if resp.Version != r.version {
		return nil, fmt.Errorf("TxnShareAcknowledge went out as v%d, negotiated v%d", resp.Version, r.version)
	}
	answers = map[SharePart]error{}
	for _, rt := range resp.Topics {
		topic, asked := topicOf[rt.TopicID]
		if !asked {
			return nil, fmt.Errorf("TxnShareAcknowledge: the response answers topic id %x, not asked", rt.TopicID)
		}
		for _, rp := range rt.Partitions {
			sp := SharePart{Topic: topic, Partition: rp.Partition}
			if _, twice := answers[sp]; twice {
				return nil, fmt.Errorf("TxnShareAcknowledge: the response answers %s twice", sp)
			}
			answers[sp] = kerr.ErrorForCode(rp.ErrorCode)
		}
	}
	for _, pa := range acks {
		if _, ok := answers[pa.Part]; !ok {
			return nil, fmt.Errorf("TxnShareAcknowledge: the response does not answer %s", pa.Part)
		}
	}
	if len(answers) != len(acks) {
		return nil, fmt.Errorf("TxnShareAcknowledge: the response answers %d share-partitions, %d asked", len(answers), len(acks))
	}
	return answers, nil
}

func partsOf(acks []PartAcks) []SharePart {
	out := make([]SharePart, len(acks))
	for i, pa := range acks {
		out[i] = pa.Part
	}
	return out
}

// answersWords are each share-partition's answer, in the request's order.
func answersWords(answers map[SharePart]error, acks []PartAcks) string {
	var out []string
	for _, pa := range acks {
		if err, ok := answers[pa.Part]; ok {
			out = append(out, pa.Part.String()+" "+answerWords(err))
		} else {
			out = append(out, pa.Part.String()+" not answered")
		}
	}
	return strings.Join(out, ", ")
}
