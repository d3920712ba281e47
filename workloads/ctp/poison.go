package ctp

import (
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Poison marks the input records no worker can process: every Every-th
// input id from Offset (r-000007, r-000107, ... for Every 100 and Offset
// 7). A worker never writes their output and RELEASEs them, so each comes
// back until the broker archives it at the delivery-count limit, and, where
// the group has a dead-letter queue (KIP-1191), writes it there. The rule is
// data, so the checker knows the poison records from the observation alone.
type Poison struct {
	Every  int `json:"every"`
	Offset int `json:"offset"`
}

// Is reports whether the input id is poison (ids that are not the
// workload's own, r-NNNNNN, never are).
func (p *Poison) Is(id string) bool {
	if p == nil || p.Every <= 0 {
		return false
	}
	n, ok := strings.CutPrefix(id, "r-")
	if !ok {
		return false
	}
	i, err := strconv.Atoi(n)
	return err == nil && i%p.Every == p.Offset
}

// splitPoison separates the poison records of a batch from the rest.
func (p *Poison) split(batch []*kgo.Record) (poison, rest []*kgo.Record) {
	if p == nil {
		return nil, batch
	}
	for _, r := range batch {
		if p.Is(string(r.Key)) {
			poison = append(poison, r)
		} else {
			rest = append(rest, r)
		}
	}
	return poison, rest
}
