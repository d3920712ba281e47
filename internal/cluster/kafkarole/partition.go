package kafkarole

import (
	"math"
	"unicode/utf16"
)

// CoordinatorPartition is the partition of a coordinator's internal topic
// that holds key, as Kafka computes it: Utils.abs(key.hashCode()) %
// partitions (Utils.abs maps MIN_VALUE to 0). The group, transaction and
// share coordinators all place their keys this way (a share-state key is
// "group:topicId:partition"). Moving that partition's leader moves the
// coordinator.
func CoordinatorPartition(key string, partitions int) int32 {
	h := javaStringHash(key)
	switch {
	case h == math.MinInt32:
		h = 0
	case h < 0:
		h = -h
	}
	return h % int32(partitions)
}

// javaStringHash is Java's String.hashCode (over UTF-16 code units).
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}
