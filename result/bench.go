package result

import (
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Bench is bench.json: what `sharechaos bench` measured and how the ack modes
// compare. The bench package fills Comparisons (bench.CompareModes) and
// Thresholds (bench.Thresholds.Evaluate); reports only writes.
type Bench struct {
	Verdict   verdict.Verdict `json:"verdict"`
	ExitCode  int             `json:"exit_code"`
	Seed      int64           `json:"seed"`
	Started   time.Time       `json:"started"`
	DurationS float64         `json:"duration_s"`
	Backend   string          `json:"backend"`
	// BackendWhy says why auto chose the backend.
	BackendWhy string `json:"backend_why,omitempty"`
	Command    string `json:"command,omitempty"`
	// Cluster is the cluster the bench measured (nil when it never answered).
	Cluster *ClusterInfo `json:"cluster,omitempty"`
	// Interrupted is true when the bench was stopped (Ctrl-C) before it ended.
	Interrupted bool `json:"interrupted,omitempty"`
	// Rates are the targets in transactions per second, the sweep's points
	// in order; 0 means closed loop (as fast as possible).
	Rates []float64 `json:"rates_tps"`
	// RepeatDurationS is each repeat's load duration.
	RepeatDurationS float64  `json:"repeat_duration_s"`
	Repeats         int      `json:"repeats"`
	Modes           []string `json:"modes"`
	Batches         []int    `json:"batches"`
	// Baseline is the mode every other mode is compared with (explicit).
	Baseline string `json:"baseline"`
	// Alpha is the significance level of the comparisons (0.05).
	Alpha  float64           `json:"alpha"`
	Config map[string]string `json:"config,omitempty"`
	// Runs are the repeats in the order they ran (modes interleaved).
	Runs []BenchRun `json:"runs"`
	// Curves: each mode's latency against its throughput over the rate
	// sweep (more than one rate only); KeptTolerance is how far below its
	// target a rate may fall and still count as kept (0.1: 10%).
	Curves        []BenchCurve `json:"curves,omitempty"`
	KeptTolerance float64      `json:"kept_tolerance,omitempty"`
	// Floors: the cluster's own cost per link latency (BenchFloor).
	Floors      []BenchFloor      `json:"floors,omitempty"`
	Comparisons []BenchComparison `json:"comparisons"`
	Thresholds  []ThresholdResult `json:"thresholds,omitempty"`
	// HarnessOverhead is the suite's own cost: the instrumented loop's
	// txn_total_duration p50 divided by a bare franz-go loop's (same cluster,
	// same schedule, explicit mode; 1 = free, above 1 = the harness adds
	// latency); 0 when it was not measured.
	HarnessOverhead float64 `json:"harness_overhead,omitempty"`
	// HarnessOverheadWhy says in words whether the figure is within
	// 0.97-1.03 and, from the paired runs' time lines, where the time goes.
	HarnessOverheadWhy string   `json:"harness_overhead_why,omitempty"`
	Notes              []string `json:"notes,omitempty"`
}

// BenchRun is one repeat of one mode at one batch size.
type BenchRun struct {
	Mode        string `json:"mode"`
	Realization string `json:"realization,omitempty"`
	Batch       int    `json:"batch"`
	// Partitions and LinkLatency are the sweep point beside the batch size:
	// the input topic's partitions and the latency toxiproxy added to every
	// link ("0s": none). Zero values: not swept.
	Partitions  int    `json:"partitions,omitempty"`
	LinkLatency string `json:"link_latency,omitempty"`
	// Rate is the sweep point's target rate ("20" transactions per second,
	// "closed" for the closed loop); "" when not swept.
	Rate   string `json:"rate,omitempty"`
	Repeat int    `json:"repeat"`
	Seed   int64  `json:"seed"`
	// Started is when this repeat's load began: time figures start there.
	Started   time.Time `json:"started"`
	DurationS float64   `json:"duration_s"`
	// Latency summarizes each histogram (metric -> percentiles); per-phase
	// summaries use the keys "metric/before", "metric/during", "metric/after".
	Latency map[string]Percentiles `json:"latency"`
	// Counters are totals: transactions, records, dropped_iterations, ...
	Counters      map[string]int64 `json:"counters,omitempty"`
	TxnPerSec     float64          `json:"txn_per_s"`
	RecordsPerSec float64          `json:"records_per_s"`
	// BrokerRequests is what the brokers themselves measured of the requests
	// they served during the measured phase, per API (Kafka's
	// RequestMetrics, summed over the brokers); absent where the backend's
	// brokers cannot be read. BrokerRequestsError says why a reading failed.
	BrokerRequests      []BrokerRequest `json:"broker_requests,omitempty"`
	BrokerRequestsError string          `json:"broker_requests_error,omitempty"`
	// Error is set when the repeat failed; its numbers are then partial.
	Error string `json:"error,omitempty"`
}

// BrokerRequest is one API's requests served during a run, as Kafka's
// brokers timed them: how many, and the mean milliseconds of each part of a
// request's life in the broker (whole milliseconds per request, as Kafka
// records them).
type BrokerRequest struct {
	API   string `json:"api"`
	Count int64  `json:"count"`
	// TotalMs is the whole; the parts: waiting for a handler thread, the
	// handler's own work, waiting on others (replication, the share
	// coordinator, a purgatory), and the response queued and sent.
	TotalMs        float64 `json:"total_ms"`
	RequestQueueMs float64 `json:"request_queue_ms"`
	LocalMs        float64 `json:"local_ms"`
	RemoteMs       float64 `json:"remote_ms"`
	ResponseMs     float64 `json:"response_ms"`
}

// BenchComparison compares one mode with the baseline for one batch size,
// metric and percentile. The sample of each side is one value per repeat (that
// repeat's percentile), so n = the number of repeats per mode.
type BenchComparison struct {
	Batch int `json:"batch"`
	// Partitions and LinkLatency: the sweep point, as in BenchRun.
	Partitions  int    `json:"partitions,omitempty"`
	LinkLatency string `json:"link_latency,omitempty"`
	Rate        string `json:"rate,omitempty"`
	Metric      string `json:"metric"`
	Percentile  string `json:"percentile"`
	Baseline    string `json:"baseline"`
	Candidate   string `json:"candidate"`
	// BaselineMs and CandidateMs are one value per repeat, in run order.
	BaselineMs  []float64 `json:"baseline_ms"`
	CandidateMs []float64 `json:"candidate_ms"`
	// Medians of the two samples, and Ratio = CandidateMedianMs / BaselineMedianMs.
	BaselineMedianMs  float64 `json:"baseline_median_ms"`
	CandidateMedianMs float64 `json:"candidate_median_ms"`
	Ratio             float64 `json:"ratio"`
	// P is the Mann-Whitney U test's p-value (two-sided).
	P     float64 `json:"p"`
	N1    int     `json:"n1"`
	N2    int     `json:"n2"`
	Alpha float64 `json:"alpha"`
	// Significant is P < Alpha.
	Significant bool `json:"significant"`
	// TooFewSamples: with n this small no difference could ever reach Alpha.
	TooFewSamples bool `json:"too_few_samples,omitempty"`
	// Words says the result for people ("no significant difference", ...).
	Words    string   `json:"words"`
	Warnings []string `json:"warnings,omitempty"`
}

// ThresholdResult is one threshold judged against what was measured.
type ThresholdResult struct {
	// Threshold is the text as the user wrote it.
	Threshold string `json:"threshold"`
	// Scope names what it was judged on ("transactional batch=10"), if not all.
	Scope    string  `json:"scope,omitempty"`
	Metric   string  `json:"metric"`
	Observed float64 `json:"observed"`
	// Unit of Observed: "ms" for latencies, "" for counts, "/s" for rates.
	Unit   string `json:"unit,omitempty"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
}

// Label names the run's mode with its realization when it has one
// ("transactional/ledger"): two realizations are different candidates.
func (r BenchRun) Label() string {
	if r.Realization != "" {
		return r.Mode + "/" + r.Realization
	}
	return r.Mode
}

// Point names the sweep point beside the batch size ("link latency 5ms, 4
// partitions"); "" when neither was set.
func (r BenchRun) Point() string { return sweepPoint(r.LinkLatency, r.Partitions, r.Rate) }

// Point names the comparison's sweep point like BenchRun.Point.
func (c BenchComparison) Point() string { return sweepPoint(c.LinkLatency, c.Partitions, c.Rate) }

func sweepPoint(latency string, partitions int, rate string) string {
	var parts []string
	switch rate {
	case "":
	case "closed":
		parts = append(parts, "closed loop")
	default:
		parts = append(parts, rate+" txn/s")
	}
	if latency != "" {
		parts = append(parts, "link latency "+latency)
	}
	if partitions > 0 {
		parts = append(parts, strconv.Itoa(partitions)+" partitions")
	}
	return strings.Join(parts, ", ")
}
