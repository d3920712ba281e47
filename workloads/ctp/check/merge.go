package check

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// namedPart is a sub-checker's part with the sub-checker's name.
type namedPart struct {
	name string
	part *part
}

// merge folds the parts into one Result, worst verdict wins (Jepsen's
// merge-valid): N/A when the cell does not apply; ANOMALY when any part found
// an anomaly the cell does not allow; UNKNOWN when any part could not decide;
// PASS otherwise. Counts are summed (each sub-checker owns its fields), and
// the anomalies of all parts are merged, examples sorted by record.
func merge(s *state, allowed Allowed, parts []namedPart) Result {
	res := Result{
		Anomalies: make(map[string]verdict.Found),
		Allowed:   allowed.Names(),
		Faults:    s.faults,
	}
	if len(s.obs.History) > 0 {
		res.HistoryStart = time.Unix(0, s.firstTS).UTC()
	}
	merged := make(map[string]*finding)
	var unknown []string
	verdicts := make([]verdict.Verdict, 0, len(parts))
	for _, np := range parts {
		p := np.part
		res.Counts = addCounts(res.Counts, p.counts)
		for name, f := range p.found {
			merged[name] = mergeFinding(merged[name], f)
		}
		pv := judgePart(np, allowed)
		res.Parts = append(res.Parts, pv)
		verdicts = append(verdicts, pv.Verdict)
		if p.unknown != "" {
			unknown = append(unknown, p.unknown)
		}
	}
	var examplesFailed string
	res.Anomalies, examplesFailed = s.examples(merged)
	if examplesFailed != "" {
		// The verdict stands without the examples' steps; the report says why
		// they are missing rather than hiding the failure.
		res.Parts = append(res.Parts, PartVerdict{Name: "examples", Verdict: verdict.Unknown, Reason: examplesFailed})
		verdicts = append(verdicts, verdict.Unknown)
		unknown = append(unknown, examplesFailed)
	}
	for name := range res.Anomalies {
		// Unseen is liveness: it can only make a cell UNKNOWN (its part says so).
		if name != verdict.AnomalyUnseen && !allowed.Allows(name) {
			res.Disallowed = append(res.Disallowed, name)
		}
	}
	sort.Strings(res.Disallowed)

	switch worst := verdict.Worst(verdicts...); {
	case allowed.NotApplicable != "":
		res.Verdict, res.Reason = verdict.NA, allowed.NotApplicable
		res.Disallowed = nil
	case worst == verdict.Anomaly:
		res.Verdict, res.Reason = verdict.Anomaly, disallowedReason(res)
	case worst == verdict.Unknown:
		res.Verdict, res.Reason = verdict.Unknown, strings.Join(unknown, "; ")
	default:
		res.Verdict = worst
	}
	return res
}

// judgePart is one part's own verdict: ANOMALY for an anomaly the cell does
// not allow, UNKNOWN when the part could not decide, PASS otherwise.
func judgePart(np namedPart, allowed Allowed) PartVerdict {
	var disallowed []string
	for _, name := range slices.Sorted(maps.Keys(np.part.found)) {
		if name != verdict.AnomalyUnseen && !allowed.Allows(name) {
			disallowed = append(disallowed, fmt.Sprintf("%s %d", name, np.part.found[name].count))
		}
	}
	switch {
	case len(disallowed) > 0:
		return PartVerdict{Name: np.name, Verdict: verdict.Anomaly, Reason: "not allowed in this mode: " + strings.Join(disallowed, ", ")}
	case np.part.unknown != "":
		return PartVerdict{Name: np.name, Verdict: verdict.Unknown, Reason: np.part.unknown}
	}
	return PartVerdict{Name: np.name, Verdict: verdict.Pass}
}

// disallowedReason names every anomaly that made the cell ANOMALY with its
// count and, where it has several mechanisms, its causes.
func disallowedReason(res Result) string {
	parts := make([]string, len(res.Disallowed))
	for i, name := range res.Disallowed {
		f := res.Anomalies[name]
		parts[i] = fmt.Sprintf("%s %d", name, f.Count)
		if len(f.Causes) > 0 {
			parts[i] += " (" + causeList(f.Causes) + ")"
		}
	}
	return "not allowed in this mode: " + strings.Join(parts, ", ")
}

// causeList writes causes as "cause n, cause n", most frequent first.
func causeList(causes map[string]int) string {
	names := slices.Collect(maps.Keys(causes))
	sort.Slice(names, func(i, j int) bool {
		if causes[names[i]] != causes[names[j]] {
			return causes[names[i]] > causes[names[j]]
		}
		return names[i] < names[j]
	})
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%s %d", n, causes[n])
	}
	return strings.Join(out, ", ")
}

// mergeFinding adds b into a (nil a: a copy of b); drafts stay sorted by
// record and at most verdict.MaxExamples.
func mergeFinding(a, b *finding) *finding {
	if a == nil {
		a = &finding{}
	}
	a.count += b.count
	for c, n := range b.causes {
		if a.causes == nil {
			a.causes = make(map[string]int)
		}
		a.causes[c] += n
	}
	a.drafts = append(a.drafts, b.drafts...)
	sort.SliceStable(a.drafts, func(i, j int) bool { return a.drafts[i].record < a.drafts[j].record })
	if len(a.drafts) > verdict.MaxExamples {
		a.drafts = a.drafts[:verdict.MaxExamples]
	}
	return a
}

func addCounts(a, b verdict.Counts) verdict.Counts {
	a.Input += b.Input
	a.Processed += b.Processed
	a.Duplicated += b.Duplicated
	a.ExtraOutputs += b.ExtraOutputs
	a.Lost += b.Lost
	a.Archived += b.Archived
	a.Unseen += b.Unseen
	a.AbortedReads += b.AbortedReads
	a.TornTxns += b.TornTxns
	a.Phantoms += b.Phantoms
	return a
}
