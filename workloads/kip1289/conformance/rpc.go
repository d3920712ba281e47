package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// rpc sends KIP-1289's two requests one at a time, with exactly the producer
// id, epoch and member tags a case chooses (the workload's Sender always
// sends its producer's own), to the broker the negotiated version routes
// them to, and returns the one partition's error code as a kerr error. It is
// the suite's own reading of the routing contract, independent of the
// workload's transport.
type rpc struct {
	cl      *kgo.Client
	keys    kip1289.APIKeys
	version int16 // TxnShareAcknowledge's, as negotiated
	log     *exchanges
}

func newRPC(ctx context.Context, cl *kgo.Client, keys kip1289.APIKeys, log *exchanges) (*rpc, error) {
	s, err := kip1289.Negotiate(ctx, cl, keys)
	if err != nil {
		return nil, err
	}
	if !s.Native {
		return nil, fmt.Errorf("broker does not speak KIP-1289: missing %v", s.Missing)
	}
	return &rpc{cl: cl, keys: keys, version: s.TxnShareAcknowledgeVersion, log: log}, nil
}

// producer is the producer identity a request carries.
type producer struct {
	txnID string
	id    int64
	epoch int16
}

// memberTags are TxnShareAcknowledge's proposed tags; nil fields are absent.
type memberTags struct {
	id    *string
	epoch *int32
}

// addShareAcksToTxn enlists one share-partition (rpc_parts.go carries
// several).
func (r *rpc) addShareAcksToTxn(ctx context.Context, p producer, group, topic string, partition int32) error {
	return r.addShareAcksToTxnParts(ctx, p, group, []SharePart{{Topic: topic, Partition: partition}})
}

// txnShareAcknowledge stages one share-partition's batches and returns its
// answer.
func (r *rpc) txnShareAcknowledge(ctx context.Context, p producer, group string, topic string, topicID [16]byte,
	partition int32, batches []wire.AcknowledgementBatch, tags memberTags) error {
	sp := SharePart{Topic: topic, Partition: partition}
	answers, err := r.txnShareAcknowledgeParts(ctx, p, group, map[string][16]byte{topic: topicID},
		[]PartAcks{{Part: sp, Batches: batches}}, tags)
	if err != nil {
		return err
	}
	return answers[sp]
}

func (r *rpc) findCoordinator(ctx context.Context, typ int8, key string) (int32, error) {
	for {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType = typ
		req.CoordinatorKeys = []string{key}
		resp, err := req.RequestWith(ctx, r.cl)
		if err == nil && len(resp.Coordinators) == 1 {
			err = kerr.ErrorForCode(resp.Coordinators[0].ErrorCode)
			if err == nil {
				return resp.Coordinators[0].NodeID, nil
			}
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return 0, fmt.Errorf("find coordinator (type %d) of %s: %w", typ, key, err)
		}
	}
}

// leader is the partition's leader in the metadata, asked again until one is
// named: after a kill the request may go to the dead broker, and the
// partition may have no leader until the controller fences it. A topic or
// partition the metadata does not know fails after unknownGrace (a new topic
// may take that long to reach every broker), not at the case's timeout.
func (r *rpc) leader(ctx context.Context, topic string, partition int32) (int32, error) {
	var unknownSince time.Time
	for {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, r.cl)
		unknown := false
		if err == nil {
			err, unknown = errors.New("none in metadata"), true
			for _, t := range resp.Topics {
				if terr := kerr.ErrorForCode(t.ErrorCode); terr != nil {
					err, unknown = terr, errors.Is(terr, kerr.UnknownTopicOrPartition)
					continue
				}
				for _, p := range t.Partitions {
					if p.Partition != partition {
						continue
					}
					unknown = false
					if p.Leader >= 0 {
						return p.Leader, nil
					}
				}
			}
		}
		switch {
		case !unknown:
			unknownSince = time.Time{}
		case unknownSince.IsZero():
			unknownSince = time.Now()
		case time.Since(unknownSince) > unknownGrace:
			return 0, fmt.Errorf("leader of %s/%d: the metadata does not know the partition (%v)", topic, partition, err)
		}
		if serr := sleep(ctx, 100*time.Millisecond); serr != nil {
			return 0, fmt.Errorf("leader of %s/%d: %w (last: %v)", topic, partition, serr, err)
		}
	}
}

// unknownGrace is how long leader waits for a topic or partition the
// metadata does not know yet.
const unknownGrace = 5 * time.Second

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
