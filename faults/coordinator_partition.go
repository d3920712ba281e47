package faults

import (
	"math"
	"unicode/utf16"
)

// Kafka's internal topics whose partition leaders are coordinators.
const (
	offsetsTopic    = "__consumer_offsets"  // group coordinators
	shareStateTopic = "__share_group_state" // share coordinators
	txnStateTopic   = "__transaction_state" // transaction coordinators
)

// javaStringHash is Java's String.hashCode (over UTF-16 code units).
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// coordinatorPartition is the partition of a coordinator's internal topic
// that holds key, as Kafka computes it: Utils.abs(key.hashCode()) %
// partitions (Utils.abs maps MIN_VALUE to 0). The group, transaction and
// share coordinators all place their keys this way (a share-state key is
// "group:topicId:partition"). A fault uses it to move a coordinator: the
// coordinator is the leader of that partition.
func coordinatorPartition(key string, partitions int) int32 {
	h := javaStringHash(key)
	switch {
	case h == math.MinInt32:
		h = 0
	case h < 0:
		h = -h
	}
	return h % int32(partitions)
}
