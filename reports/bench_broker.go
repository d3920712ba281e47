package reports

import (
	"fmt"
	"strconv"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
)

// loopAPIs are the requests of a consume-transform-produce transaction, in
// the order a transaction makes them, as Kafka's RequestMetrics name them:
// the broker-side table lists these (the cluster's other requests, such as
// follower fetches and heartbeats, are in bench.json).
var loopAPIs = []string{"ShareFetch", "ShareAcknowledge", "Produce", "AddPartitionsToTxn",
	"AddShareAcksToTxn", "TxnShareAcknowledge", "EndTxn", "WriteTxnMarkers", "WriteShareGroupState"}

var brokerHeader = []string{"mode", "batch", "request", "per txn", "total ms", "request queue", "local", "remote", "response", "repeats"}

// brokerTable is the brokers' own time per request of the loop, per mode,
// sweep point and batch size: medians over the repeats of each repeat's mean.
func brokerTable(b result.Bench) (cellTable, bool) {
	t := cellTable{Title: "Where the brokers spend a transaction's time", Header: brokerHeader}
	var order []benchCell
	type sample struct{ perTxn, total, queue, local, remote, response []float64 }
	samples := map[benchCell]map[string]*sample{}
	for _, r := range b.Runs {
		txns := r.Counters[bench.Transactions]
		if r.Error != "" || len(r.BrokerRequests) == 0 || txns == 0 {
			continue
		}
		k := cellOf(r)
		if _, ok := samples[k]; !ok {
			samples[k] = map[string]*sample{}
			order = append(order, k)
		}
		for _, q := range r.BrokerRequests {
			s := samples[k][q.API]
			if s == nil {
				s = &sample{}
				samples[k][q.API] = s
			}
			s.perTxn = append(s.perTxn, float64(q.Count)/float64(txns))
			s.total, s.queue, s.local = append(s.total, q.TotalMs), append(s.queue, q.RequestQueueMs), append(s.local, q.LocalMs)
			s.remote, s.response = append(s.remote, q.RemoteMs), append(s.response, q.ResponseMs)
		}
	}
	for _, k := range order {
		mode := k.name()
		for _, api := range loopAPIs {
			s := samples[k][api]
			if s == nil {
				continue
			}
			ms := func(v []float64) string { return strconv.FormatFloat(round3(medianOf(v)), 'f', -1, 64) }
			t.Rows = append(t.Rows, []string{mode, strconv.Itoa(k.batch), api, fmt.Sprintf("%.2f", medianOf(s.perTxn)),
				ms(s.total), ms(s.queue), ms(s.local), ms(s.remote), ms(s.response), strconv.Itoa(len(s.total))})
		}
	}
	return t, len(t.Rows) > 0
}

// brokerIntro says how to read the broker-side table.
func brokerIntro() string {
	return "Kafka's own request metrics (RequestMetrics, read from every broker before and after each run's measured phase): for each request of the loop, how many per committed transaction, and the mean milliseconds a broker spent on one, split as Kafka splits it: waiting for a handler thread, the handler's own work, waiting on others (replication for acks=all, the share coordinator's durable write, a purgatory), and the response queued and sent. Medians over the repeats. Kafka records each request's parts in whole milliseconds, so parts under a millisecond read low."
}

// brokerMissing says why no run has the brokers' times, when a run tried.
func brokerMissing(b result.Bench) string {
	for _, r := range b.Runs {
		if r.BrokerRequestsError != "" {
			return r.BrokerRequestsError
		}
	}
	return ""
}
