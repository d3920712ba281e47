package result

// BenchCurve is one mode's latency against the throughput it achieved, over
// a bench's rate sweep, at one batch size and (link latency, partitions):
// the curve every messaging benchmark draws, and where it bends.
type BenchCurve struct {
	Mode        string `json:"mode"`
	Batch       int    `json:"batch"`
	Partitions  int    `json:"partitions,omitempty"`
	LinkLatency string `json:"link_latency,omitempty"`
	// Points in the order of the sweep (the closed loop last).
	Points []CurvePoint `json:"points"`
	// SaturationTps is the highest target rate the mode kept (see
	// CurvePoint.Kept); 0 when it kept none.
	SaturationTps float64 `json:"saturation_tps"`
	// MaxTps is what the mode committed closed loop (0: not run).
	MaxTps float64 `json:"max_tps,omitempty"`
	// Words say the saturation for people.
	Words string `json:"words"`
}

// CurvePoint is a mode at one target rate: medians over its repeats.
type CurvePoint struct {
	// Rate is the target ("20" transactions per second, "closed").
	Rate      string  `json:"rate"`
	TargetTps float64 `json:"target_tps"`
	Repeats   int     `json:"repeats"`
	// AchievedTps: transactions committed in the measurement, per second.
	AchievedTps float64 `json:"achieved_tps"`
	// Latencies of txn_total_duration and txn_commit_duration, ms.
	TotalP50Ms  float64 `json:"total_p50_ms"`
	TotalP99Ms  float64 `json:"total_p99_ms"`
	CommitP50Ms float64 `json:"commit_p50_ms"`
	CommitP99Ms float64 `json:"commit_p99_ms"`
	// Dropped ticks over the repeats (the driver's backlog was full).
	Dropped int64 `json:"dropped"`
	// Kept: an open-loop rate whose median achieved throughput is within
	// the bench's KeptTolerance of its target. The closed loop is never
	// "kept": it is the most the mode does.
	Kept bool `json:"kept"`
	// TotalXFloor and CommitXFloor are the p50s as multiples of the floor
	// at the point's link latency (a bare transaction's begin-to-commit and
	// its commit); 0 when no floor was measured.
	TotalXFloor  float64 `json:"total_x_floor,omitempty"`
	CommitXFloor float64 `json:"commit_x_floor,omitempty"`
}

// BenchFloor is what the cluster itself costs, measured in the bench's run
// on the same cluster at one link latency, one operation at a time: the
// floor every mode's latency is read against.
type BenchFloor struct {
	LinkLatency string `json:"link_latency"`
	// Produce: one record, acks=all, waited for, the next only then.
	Produce Percentiles `json:"produce"`
	// Txn: a bare transaction, one record and its commit, from begin to
	// the commit returned.
	Txn Percentiles `json:"txn"`
	// TxnCommit: that transaction's commit alone (EndTxn and its wait).
	TxnCommit Percentiles `json:"txn_commit"`
	Error     string      `json:"error,omitempty"`
}
