package shareconsumer

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"
)

// fetchLimit is what one ShareFetch may acquire and how long the broker may
// wait for records.
type fetchLimit struct {
	records int32
	wait    time.Duration
}

// fullFetch is an ordinary Poll's fetch: the whole MaxRecords, waiting up to
// MaxWait.
func (c *Consumer) fullFetch() fetchLimit {
	return fetchLimit{records: c.cfg.MaxRecords, wait: c.cfg.MaxWait}
}

// spread asks every leader in want at once, with MaxWait 0, each for its
// share of MaxRecords (splitShares), and returns what they acquired
// together. A leader of several wanted partitions is asked once per
// partition, in turn, each time for its part of the leader's share.
//
// Why: a broker fills a ShareFetch from one partition while that partition
// has MaxRecords available, so a consumer that fetches from one broker per
// poll hands out single-partition batches (0 of 1,406 polls of a docker
// smoke spanned two partitions). A transaction's acks then never span
// share-partitions, and a broker or loop that mishandles that (commits only
// the first partition's acks, say) passes. Asking every leader gives one
// poll records of as many partitions as leaders have records; asking one
// leader in turn does the same for the partitions it leads, because the
// broker starts each fetch of a session at another partition (Kafka rotates
// the start by the session epoch; kfake by the epoch too, over its session
// map's order, so two turns there start at one partition now and then).
// Without the turns, a worker
// whose partitions shared a leader never spanned (an embedded smoke, one
// run in about twenty under load: UNKNOWN). MaxWait 0 keeps the poll from
// waiting on the slowest leader; when none had records, Poll falls back to
// one waiting fetch.
func (c *Consumer) spread(ctx context.Context, want map[int32]map[topicPartition]struct{}) ([]*Record, error) {
	nodes := slices.Sorted(maps.Keys(want))
	c.mu.Lock()
	c.next++
	first := c.next
	c.mu.Unlock()
	shares := splitShares(c.cfg.MaxRecords, len(nodes), first)
	var (
		mu   sync.Mutex
		recs []*Record
		errs []error
		wg   sync.WaitGroup
	)
	for i, node := range nodes {
		if shares[i] == 0 && len(want[node]) > 0 {
			continue
		}
		// A broker listed with no partitions gets a fetch all the same: it
		// forgets the partitions its session still holds (wanted).
		turns := splitShares(max(shares[i], 1), max(min(len(want[node]), int(shares[i])), 1), 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range turns {
				got, err := c.fetchFrom(ctx, node, want[node], fetchLimit{records: n})
				mu.Lock()
				recs = append(recs, got...)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return recs, errors.Join(errs...)
}

// spreads reports whether a poll spreads over want: more than one leader,
// or one leader of more than one partition.
func spreads(want map[int32]map[topicPartition]struct{}) bool {
	if len(want) > 1 {
		return true
	}
	for _, ps := range want {
		return len(ps) > 1
	}
	return false
}

// splitShares divides total records between n brokers as evenly as whole
// records allow; the remainder goes to the brokers from index first on
// (modulo n), so that with fewer records than brokers each poll favours
// another one.
func splitShares(total int32, n int, first int) []int32 {
	shares := make([]int32, n)
	for i := range shares {
		shares[i] = total / int32(n)
	}
	for k := 0; k < int(total%int32(n)); k++ {
		shares[(first+k)%n]++
	}
	return shares
}
