package result

// Comparison is one value of a plan dimension (a Kafka release, a client)
// against the dimension's baseline (the run's first value), for one
// scenario and mode, by the Mann-Whitney U test on the commit latency (over
// the cell's commits, or over the repeats' p50 when the run repeats).
type Comparison struct {
	Scenario string `json:"scenario"`
	// Mode is the mode with its realization ("transactional/ledger").
	Mode string `json:"mode"`
	// KafkaVersion and Client are where the comparison was made on the
	// other dimension: a comparison of clients in a run over releases names
	// the release, one of releases the client; "" when the cells had none.
	KafkaVersion string `json:"kafka_version,omitempty"`
	Client       string `json:"client,omitempty"`
	Metric       string `json:"metric"`
	// Unit is what one value of a sample is: "commits" (every commit of
	// the value's one cell) or "repeats' p50" (each repeat's commit p50,
	// --repeats 2 or more: the bench's unit).
	Unit              string  `json:"unit,omitempty"`
	Baseline          string  `json:"baseline"`
	Candidate         string  `json:"candidate"`
	BaselineMedianMs  float64 `json:"baseline_median_ms"`
	CandidateMedianMs float64 `json:"candidate_median_ms"`
	// Ratio is the candidate's median over the baseline's (0: undefined).
	Ratio       float64 `json:"ratio"`
	P           float64 `json:"p"`
	N1          int     `json:"n1"`
	N2          int     `json:"n2"`
	Significant bool    `json:"significant"`
	Words       string  `json:"words"`
}
