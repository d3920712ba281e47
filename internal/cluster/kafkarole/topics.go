package kafkarole

import "github.com/sharechaos/sharechaos/internal/cluster"

// Kafka's internal topics whose partition leaders are coordinators.
const (
	OffsetsTopic    = "__consumer_offsets"  // group coordinators
	ShareStateTopic = "__share_group_state" // share coordinators
	TxnStateTopic   = "__transaction_state" // transaction coordinators
)

// CoordinatorTopic names the internal topic whose partition leaders hold
// kind's role, and the broker setting that gives its partition count; ok is
// false for a kind no internal topic places (a partition's leader).
func CoordinatorTopic(kind cluster.CoordKind) (topic, partitionsSetting string, ok bool) {
	switch kind {
	case cluster.CoordShareState:
		return ShareStateTopic, "share.coordinator.state.topic.num.partitions", true
	case cluster.CoordTransaction:
		return TxnStateTopic, "transaction.state.log.num.partitions", true
	case cluster.CoordGroup:
		return OffsetsTopic, "offsets.topic.num.partitions", true
	}
	return "", "", false
}
