package benchrun

import (
	"context"
	"math"
	"sort"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/result"
)

// brokerTimes reads the brokers' own request times (Kafka's RequestMetrics)
// before and after a run's measured phase: their difference is the phase's
// requests as the brokers served them, beside the client's times.
type brokerTimes struct {
	timer  cluster.RequestTimer
	before cluster.RequestTimes
	err    error
}

// readBrokerTimesBefore takes the first reading; on a backend whose brokers
// cannot be read it does nothing, and since says nothing.
func readBrokerTimesBefore(ctx context.Context, c cluster.Cluster) *brokerTimes {
	timer, ok := c.(cluster.RequestTimer)
	if !ok {
		return &brokerTimes{}
	}
	before, err := timer.RequestTimes(ctx)
	return &brokerTimes{timer: timer, before: before, err: err}
}

// since takes the second reading and gives the phase's requests by API, or
// why they could not be read ("" and nil on a backend that has none).
func (b *brokerTimes) since(ctx context.Context) ([]result.BrokerRequest, string) {
	if b.timer == nil {
		return nil, ""
	}
	if b.err != nil {
		return nil, b.err.Error()
	}
	after, err := b.timer.RequestTimes(ctx)
	if err != nil {
		return nil, err.Error()
	}
	d, err := after.Since(b.before)
	if err != nil {
		return nil, err.Error()
	}
	return brokerRequests(d), ""
}

// brokerRequests are the request times as means per request, by API name.
func brokerRequests(t cluster.RequestTimes) []result.BrokerRequest {
	out := make([]result.BrokerRequest, 0, len(t))
	for api, r := range t {
		n := float64(r.Count)
		// A part's sum is Mean x Count read back from a double: a difference of
		// two such can come out a hair below zero where the part took nothing.
		mean := func(ms float64) float64 { return max(0, math.Round(ms/n*1000)/1000) }
		out = append(out, result.BrokerRequest{API: api, Count: r.Count, TotalMs: mean(r.TotalMs),
			RequestQueueMs: mean(r.RequestQueueMs), LocalMs: mean(r.LocalMs), RemoteMs: mean(r.RemoteMs),
			ResponseMs: mean(r.ResponseQueueMs + r.ResponseSendMs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].API < out[j].API })
	return out
}
