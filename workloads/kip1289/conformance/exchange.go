package conformance

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// Exchange is one KIP-1289 request a case sent and what the broker answered,
// in words: the kit's report shows them beside a case's verdict, so an
// implementer reads what their broker was asked and what it said.
type Exchange struct {
	Request string `json:"request"`
	Answer  string `json:"answer"`
}

// exchanges collects a case's exchanges (its rpc's requests).
type exchanges struct {
	mu   sync.Mutex
	list []Exchange
}

func (x *exchanges) add(request, answer string) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.list = append(x.list, Exchange{Request: request, Answer: answer})
}

// Exchanges are the KIP-1289 requests the case sent so far, in order.
func (e *Env) Exchanges() []Exchange {
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	return append([]Exchange(nil), e.log.list...)
}

func describeAdd(node int32, req *wire.AddShareAcksToTxnRequest) string {
	var parts []string
	for _, t := range req.Topics {
		parts = append(parts, fmt.Sprintf("%s%v", t.Topic, t.Partitions))
	}
	return fmt.Sprintf("AddShareAcksToTxn to broker %d: txn %s producer %d/%d group %s: %s",
		node, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.GroupID, strings.Join(parts, " "))
}

func describeAck(node int32, version int16, req *wire.TxnShareAcknowledgeRequest, topicOf func([16]byte) string) string {
	var parts []string
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			var bs []string
			for _, b := range p.AcknowledgementBatches {
				bs = append(bs, fmt.Sprintf("%d-%d:%s", b.FirstOffset, b.LastOffset, kip1289.AckType(b.AcknowledgeType)))
			}
			parts = append(parts, fmt.Sprintf("%s/%d[%s]", topicOf(t.TopicID), p.Partition, strings.Join(bs, ",")))
		}
	}
	member := "no member tags"
	if req.MemberID != nil {
		member = "member " + *req.MemberID
		if req.MemberEpoch != nil {
			member += fmt.Sprintf(" epoch %d", *req.MemberEpoch)
		}
	}
	return fmt.Sprintf("TxnShareAcknowledge v%d to broker %d: txn %s producer %d/%d group %s, %s: %s",
		version, node, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.GroupID, member, strings.Join(parts, " "))
}

// answerWords is an answer's error, "NONE" for success.
func answerWords(err error) string {
	if err == nil {
		return "NONE"
	}
	return err.Error()
}
