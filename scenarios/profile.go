package scenarios

import (
	"slices"
)

// Profile is a named set of scenarios with how often to run them and the
// thresholds they must meet (CONTRACT.md --profile).
type Profile struct {
	Name  string
	About string
	// Scenarios are catalog names; nil means every row.
	Scenarios []string
	// Repeats runs every cell this often (0 is once).
	Repeats int
	// Records is each cell's input when --records is not given (0: the
	// run's default).
	Records int
	// Thresholds are k6-style bounds every matching cell must meet.
	Thresholds []string
	// Select, when Scenarios is nil, picks the catalog's rows (nil: every
	// row).
	Select func(Scenario) bool
}

// qualificationThresholds fail a qualification run whose latency is far out of
// line even under faults; --threshold replaces them. Generous on purpose: a
// fault stalls commits for seconds, and qualification is about correctness
// first, with latency as a sanity bound.
var qualificationThresholds = []string{
	"txn_commit_duration: p(99)<5s",
	"txn_total_duration: p(50)<1s",
}

var profiles = []Profile{
	{Name: "smoke", About: "what CI runs: steady, crash-after-commit, crash-after-acks",
		Scenarios: []string{"steady", "crash-after-commit", "crash-after-acks"}},
	// 1000 records a cell: issue 5's nightly table on real Kafka was taken
	// so, and every row's fault lands well inside that load.
	{Name: "nightly", About: "every row of the catalog but the known Kafka bugs', once, 1000 records a cell", Records: 1000,
		Select: func(s Scenario) bool { return s.KnownBug == nil }},
	{Name: "qualification", About: "every row, three times, with latency thresholds",
		Repeats: 3, Thresholds: qualificationThresholds},
	// docs/KNOWN-BUGS.md: each row ANOMALY on a release without its fix,
	// PASS on one with it (--kafka-version 4.2.2,4.3.2,4.4.0).
	{Name: "known-bugs", About: "the rows that reproduce known Apache Kafka bugs: ANOMALY on a release without the fix, PASS with it",
		Select: func(s Scenario) bool { return s.KnownBug != nil }},
}

// DefaultProfile is what a run without --profile or --scenario runs.
const DefaultProfile = "smoke"

// LookupProfile finds a profile by name, with its scenario list filled in.
func LookupProfile(name string) (Profile, bool) {
	for _, p := range profiles {
		if p.Name == name {
			if p.Scenarios == nil {
				for _, s := range catalog {
					if p.Select == nil || p.Select(s) {
						p.Scenarios = append(p.Scenarios, s.Name)
					}
				}
			}
			p.Scenarios = slices.Clone(p.Scenarios)
			p.Thresholds = slices.Clone(p.Thresholds)
			return p, true
		}
	}
	return Profile{}, false
}

// Profiles lists the profiles in order.
func Profiles() []Profile { return slices.Clone(profiles) }

// ProfileNames lists the profiles' names.
func ProfileNames() []string {
	out := make([]string, len(profiles))
	for i, p := range profiles {
		out[i] = p.Name
	}
	return out
}
