package result

import (
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Result is result.json (CONTRACT.md).
type Result struct {
	Verdict   verdict.Verdict `json:"verdict"`
	ExitCode  int             `json:"exit_code"`
	Seed      int64           `json:"seed"`
	Started   time.Time       `json:"started"`
	DurationS float64         `json:"duration_s"`
	// Backend is the backend the run used, and BackendWhy why (auto's choice).
	Backend    string `json:"backend"`
	BackendWhy string `json:"backend_why,omitempty"`
	// Cluster is the cluster the run tested (nil when it never answered).
	Cluster *ClusterInfo `json:"cluster,omitempty"`
	// Clusters are the clusters of a run over Kafka releases
	// (--kafka-version), one per release in the order run; Cluster is the
	// first of them.
	Clusters []ClusterInfo `json:"clusters,omitempty"`
	// VersionComparisons compare each release's commit latency with the
	// first release's, per scenario and mode (a run over releases);
	// ClientComparisons each client's with the first client's (a run over
	// clients, --client go,java).
	VersionComparisons []Comparison `json:"version_comparisons,omitempty"`
	ClientComparisons  []Comparison `json:"client_comparisons,omitempty"`
	// Command is the command line, so a run can be replayed.
	Command string `json:"command,omitempty"`
	// Dir is the run directory.
	Dir string `json:"dir,omitempty"`
	// Interrupted is true when the run was stopped (Ctrl-C) before it ended.
	Interrupted bool `json:"interrupted,omitempty"`
	// Config is every setting that shaped the run (chaos defaults included).
	Config map[string]string `json:"config,omitempty"`
	Runs   []Cell            `json:"runs"`
	// Thresholds are the run's thresholds as judged (qualification); added
	// after the first cut.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// ClusterStartS is how long the cluster took to start.
	ClusterStartS float64 `json:"cluster_start_s,omitempty"`
}

// Cell is one (scenario, mode, backend, realization, client, Kafka version,
// repeat).
type Cell struct {
	Scenario    string `json:"scenario"`
	Mode        string `json:"mode"`
	Backend     string `json:"backend"`
	Realization string `json:"realization"`
	// KafkaVersion is the Kafka release the cell ran on when the run named
	// its versions (--kafka-version), one plan dimension like the mode; ""
	// in runs that did not (and in every run from before versions), whose
	// names stay as they were.
	KafkaVersion string `json:"kafka_version,omitempty"`
	// Client is the client the cell's workers ran on (--client: "go",
	// "java"), one plan dimension like the release; "" in runs from before
	// clients were one, which ran the default (ClientOf).
	Client  string          `json:"client,omitempty"`
	Repeat  int             `json:"repeat"`
	Seed    int64           `json:"seed"`
	Verdict verdict.Verdict `json:"verdict"`
	verdict.Counts
	CommitP50Ms float64 `json:"commit_p50_ms"`
	CommitP99Ms float64 `json:"commit_p99_ms"`
	TxnP50Ms    float64 `json:"txn_p50_ms"`
	TxnP99Ms    float64 `json:"txn_p99_ms"`
	Fault       Fault   `json:"fault"`
	// Allowed lists the anomalies this mode allows in this scenario.
	Allowed   []string                 `json:"allowed"`
	Anomalies map[string]verdict.Found `json:"anomalies"`
	Reason    string                   `json:"reason,omitempty"`
	// DurationS is the cell's wall time; Dir its folder inside the run directory.
	DurationS float64 `json:"duration_s"`
	Dir       string  `json:"dir,omitempty"`
	// Latency summarizes each histogram of the cell (metric -> percentiles).
	Latency map[string]Percentiles `json:"latency,omitempty"`
	// Notes are warnings for people (fallbacks, quality of the run).
	Notes []string `json:"notes,omitempty"`
	// Phases are the cell's phase times in order (PhaseTopicSetup...), and
	// WaitsS the part of its wall time spent in waits the scenario needs
	// (a lock or transaction timeout, a stall, a restart, a fault held).
	Phases []Phase `json:"phases,omitempty"`
	WaitsS float64 `json:"unavoidable_waits_s,omitempty"`
	// SoakTimeline is a soak cell's (--duration) timeline in a few dozen
	// buckets over the whole duration.
	SoakTimeline []SoakBucket `json:"soak_timeline,omitempty"`
	// ShareStartAdjusted lists the input partitions whose share start
	// offset the cell was judged by is not the one Kafka reported after the
	// drain: both, and the rule that moved it (observation.json keeps every
	// partition's). Empty when none was moved, or the reported ones are
	// unknown (a note says so).
	ShareStartAdjusted []ShareStartAdjusted `json:"share_start_adjusted,omitempty"`
}

// ShareStartAdjusted is one input partition's share start offset as Kafka
// reported it and as the cell was judged by it.
type ShareStartAdjusted struct {
	Partition int32 `json:"partition"`
	// Reported is DescribeShareGroupOffsets' start offset.
	Reported int64 `json:"reported"`
	// Judged is the one the drain and the checker used.
	Judged int64 `json:"judged"`
	// Rule names why they differ (ctp.RuleLagZeroIsDone).
	Rule string `json:"rule"`
}

// Name is scenario/mode/backend[/realization][~client][@version]
// (CONTRACT.md "Names").
func (c Cell) Name() string { return CellName(c.NameParts()) }

// NameParts are the fields c's name is made of.
func (c Cell) NameParts() NameParts {
	return NameParts{Scenario: c.Scenario, Mode: c.Mode, Backend: c.Backend, Realization: c.Realization,
		Client: c.Client, Version: c.KafkaVersion}
}

// NameParts are the fields a cell's name is made of.
type NameParts struct {
	Scenario, Mode, Backend, Realization string
	// Client is named only when it is not DefaultClient, Version only when
	// the run names its releases: a name without either is the name runs
	// gave before clients and releases were dimensions, so stored runs,
	// re-checks and `go test -run` patterns keep theirs.
	Client, Version string
}

// CellName is a cell's name from its parts: scenario/mode/backend, then
// Dimensions.
func CellName(p NameParts) string {
	return p.Scenario + "/" + p.Mode + "/" + p.Backend + p.Dimensions()
}

// Dimensions is the name's part after the backend: the realization after a
// '/', the client after a '~' (not a regular expression's metacharacter, so
// a -run pattern can name it), the version last, after an '@'.
func (p NameParts) Dimensions() string {
	n := ""
	if p.Realization != "" {
		n += "/" + p.Realization
	}
	if p.Client != "" && p.Client != DefaultClient {
		n += "~" + p.Client
	}
	if p.Version != "" {
		n += "@" + p.Version
	}
	return n
}

// Fault says whether and when a cell's fault fired.
type Fault struct {
	Name  string      `json:"name"`
	Fired bool        `json:"fired"`
	Times []time.Time `json:"times,omitempty"`
	// Healed are the times a cluster fault's heals completed (from the
	// fault's own report).
	Healed []time.Time `json:"healed,omitempty"`
}

// Percentiles of one histogram, in milliseconds.
type Percentiles struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
	// Mean is the arithmetic mean (thresholds' avg); added after the first cut, so
	// readers of older result.json files see 0.
	Mean float64 `json:"mean_ms,omitempty"`
}

// validate checks what every reader relies on: known verdict words, the exit
// code that goes with the run verdict, and a cell list.
func (r Result) validate() error {
	if !r.Verdict.Known() {
		return fmt.Errorf("verdict %q is not one of %v", r.Verdict, verdict.All())
	}
	if r.ExitCode != r.Verdict.ExitCode() {
		return fmt.Errorf("exit_code %d does not go with verdict %s (want %d)", r.ExitCode, r.Verdict, r.Verdict.ExitCode())
	}
	if r.Runs == nil {
		return fmt.Errorf("no \"runs\" list")
	}
	for i, c := range r.Runs {
		if !c.Verdict.Known() {
			return fmt.Errorf("runs[%d] (%s): verdict %q is not one of %v", i, c.Name(), c.Verdict, verdict.All())
		}
	}
	return nil
}
