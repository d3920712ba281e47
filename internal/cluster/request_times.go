package cluster

import (
	"context"
	"fmt"
)

// RequestTimes is what a cluster's brokers measured of the requests they
// served, per API (Kafka's RequestMetrics: the histograms
// kafka.network:type=RequestMetrics,name=<part>TimeMs,request=<API>), summed
// over the brokers since each started. Two readings taken around a run give
// the run's own requests (Since).
type RequestTimes map[string]RequestTime

// RequestTime is one API's requests: how many, and the summed milliseconds of
// each part of a request's life in the broker, as Kafka splits it.
type RequestTime struct {
	Count int64
	// TotalMs is the whole: from the request read off the socket to its
	// response sent.
	TotalMs float64
	// RequestQueueMs waited for a request handler thread.
	RequestQueueMs float64
	// LocalMs is the handler's own work (an append to the local log, say).
	LocalMs float64
	// RemoteMs waited on others: a produce's replication (acks=all), a
	// share-state write to the share coordinator, a purgatory.
	RemoteMs float64
	// ResponseQueueMs and ResponseSendMs: the response waiting for its
	// network thread, and being written.
	ResponseQueueMs float64
	ResponseSendMs  float64
}

// RequestTimer is a backend whose brokers' request times can be read.
type RequestTimer interface {
	RequestTimes(ctx context.Context) (RequestTimes, error)
}

// Since is what was served between the reading before and t, the APIs that
// served nothing in between left out. A count that went down means a broker
// restarted in between (its histograms start again at zero): the difference
// would be wrong, so that is an error.
func (t RequestTimes) Since(before RequestTimes) (RequestTimes, error) {
	out := RequestTimes{}
	for api, now := range t {
		was := before[api]
		if now.Count < was.Count {
			return nil, fmt.Errorf("request times of %s went back (%d requests, then %d): a broker restarted in between", api, was.Count, now.Count)
		}
		if now.Count == was.Count {
			continue
		}
		out[api] = RequestTime{
			Count:           now.Count - was.Count,
			TotalMs:         now.TotalMs - was.TotalMs,
			RequestQueueMs:  now.RequestQueueMs - was.RequestQueueMs,
			LocalMs:         now.LocalMs - was.LocalMs,
			RemoteMs:        now.RemoteMs - was.RemoteMs,
			ResponseQueueMs: now.ResponseQueueMs - was.ResponseQueueMs,
			ResponseSendMs:  now.ResponseSendMs - was.ResponseSendMs,
		}
	}
	return out, nil
}

// Add sums o into t (the same API on another broker).
func (t RequestTimes) Add(o RequestTimes) {
	for api, r := range o {
		s := t[api]
		s.Count += r.Count
		s.TotalMs += r.TotalMs
		s.RequestQueueMs += r.RequestQueueMs
		s.LocalMs += r.LocalMs
		s.RemoteMs += r.RemoteMs
		s.ResponseQueueMs += r.ResponseQueueMs
		s.ResponseSendMs += r.ResponseSendMs
		t[api] = s
	}
}
