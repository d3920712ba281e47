// Package ctp is the consume-transform-produce workload: the input seeder, the
// worker loop in each ack mode, and the checker that judges what the loop left.
package ctp

import (
	"fmt"
	"strconv"
	"strings"
)

// Record format (CONTRACT.md "Records").
//
// Input: key = a unique id, value = a payload that contains the id.
// Output: key = the input's key, value = Transform(input value), and headers
// src (input topic/partition/offset), worker (slot.incarnation), txn (the
// worker's transaction sequence number).
const (
	HeaderSrc    = "src"
	HeaderWorker = "worker"
	HeaderTxn    = "txn"
)

// InputID is the key of the i-th seeded input record.
func InputID(i int) string { return fmt.Sprintf("r-%06d", i) }

// Payload is the value of the input record with the given id.
func Payload(id string) string { return "payload:" + id }

// Transform is the workload's transformation of an input value. It is cheap
// and checkable: the checker recomputes it to catch corrupted outputs.
func Transform(value string) string { return "processed(" + value + ")" }

// Src formats the src header.
func Src(topic string, partition int32, offset int64) string {
	return topic + "/" + strconv.Itoa(int(partition)) + "/" + strconv.FormatInt(offset, 10)
}

// ParseSrc splits a src header into topic, partition and offset.
func ParseSrc(s string) (topic string, partition int32, offset int64, err error) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", 0, 0, fmt.Errorf("parse src %q: no offset", s)
	}
	j := strings.LastIndexByte(s[:i], '/')
	if j < 0 {
		return "", 0, 0, fmt.Errorf("parse src %q: no partition", s)
	}
	p, err := strconv.ParseInt(s[j+1:i], 10, 32)
	if err != nil {
		return "", 0, 0, fmt.Errorf("parse src %q: %w", s, err)
	}
	o, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		return "", 0, 0, fmt.Errorf("parse src %q: %w", s, err)
	}
	return s[:j], int32(p), o, nil
}

// WorkerName is slot.incarnation, e.g. "w2.1".
func WorkerName(slot, incarnation int) string { return fmt.Sprintf("w%d.%d", slot, incarnation) }
