package check

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checker is one named sub-checker: it judges one property of the cell from
// the shared state and says what it found in its part. It only reads the
// state, so the sub-checkers are independent of each other and of their order.
type checker struct {
	name  string
	check func(s *state) *part
}

// part is what one sub-checker found.
type part struct {
	// counts holds the fields of verdict.Counts this sub-checker owns;
	// merging sums the parts' counts, so no two sub-checkers own a field.
	counts verdict.Counts
	// found maps an anomaly name to what was found of it.
	found map[string]*finding
	// unknown, when set, says why this part cannot decide: the part is
	// UNKNOWN whatever else it found.
	unknown string
}

// finding is one anomaly kind as one part saw it.
type finding struct {
	count int
	// causes counts the instances by the mechanism that produced them (the
	// cause in the examples); empty where an anomaly has only one way to
	// happen.
	causes map[string]int
	drafts []draft
}

// draft is an example before its steps are filled in.
type draft struct {
	record  string
	summary string
	cause   string
}

func newPart() *part { return &part{found: make(map[string]*finding)} }

// report counts one instance of anomaly name on record, by cause ("" when the
// anomaly has a single mechanism). summary is called only for the first
// verdict.MaxExamples instances: the sub-checkers report in record order, so
// those are the smallest records, and a cell with 100k duplicates does not
// format 100k sentences.
func (p *part) report(name, record, cause string, summary func() string) {
	f := p.found[name]
	if f == nil {
		f = &finding{}
		p.found[name] = f
	}
	f.count++
	if cause != "" {
		if f.causes == nil {
			f.causes = make(map[string]int)
		}
		f.causes[cause]++
	}
	if len(f.drafts) < verdict.MaxExamples {
		f.drafts = append(f.drafts, draft{record: record, summary: summary(), cause: cause})
	}
}

// runSafe runs one sub-checker; a panic makes its part UNKNOWN, naming the
// part, and nothing else (Jepsen's check-safe: a checker that crashes cannot
// say the cell held, but the other checkers still can say it broke).
func runSafe(c checker, s *state) (p *part) {
	defer func() {
		if r := recover(); r != nil {
			p = newPart()
			p.unknown = fmt.Sprintf("checker %s panicked: %v", c.name, r)
		}
	}()
	p = c.check(s)
	if p == nil {
		p = newPart()
	}
	return p
}
