package judge

import (
	"slices"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/result"
)

// soakRows is about how many buckets a soak's timeline in result.json and
// summary.md has at most: a table a person reads, over any duration (the
// plots in report.html have finer buckets, timeline.go).
const soakRows = 30

// SoakTimeline is a soak cell's timeline from its histories, time 0 its
// first event: per bucket the records seeded and committed, the commits'
// latency and whether a fault acted.
func SoakTimeline(c result.Cell, h history.History) []result.SoakBucket {
	if len(h) == 0 {
		return nil
	}
	origin, last := h[0].TS, h[0].TS
	for _, e := range h {
		origin, last = min(origin, e.TS), max(last, e.TS)
	}
	span := time.Duration(last - origin)
	step := timelineSteps[len(timelineSteps)-1]
	for _, s := range timelineSteps {
		if span/s < soakRows {
			step = s
			break
		}
	}
	n := int(span/step) + 1
	out := make([]result.SoakBucket, n)
	lat := make([][]float64, n)
	for i := range out {
		out[i].FromS = (time.Duration(i) * step).Seconds()
		out[i].ToS = min(time.Duration(i+1)*step, span).Seconds()
	}
	bucket := func(ts int64) int { return min(n-1, int(time.Duration(ts-origin)/step)) }
	for _, e := range h {
		switch {
		case e.F == history.FSeed && e.Type == history.OK:
			k, _ := strconv.Atoi(e.Attrs["records"])
			out[bucket(e.TS)].Seeded += k
		case e.F == history.FCommit && e.Type == history.OK:
			b := bucket(e.TS)
			out[b].Commits++
			out[b].Committed += len(e.Records)
			lat[b] = append(lat[b], float64(e.DurNS)/float64(time.Millisecond))
		}
	}
	for i, ls := range lat {
		if len(ls) == 0 {
			continue
		}
		slices.Sort(ls)
		out[i].CommitP50Ms = ls[int(0.50*float64(len(ls)))]
		out[i].CommitP99Ms = ls[min(len(ls)-1, int(0.99*float64(len(ls))))]
		out[i].CommitMaxMs = ls[len(ls)-1]
	}
	for _, sh := range faultShades(c.Fault, time.Unix(0, origin)) {
		for i := range out {
			from, to := time.Duration(out[i].FromS*float64(time.Second)), time.Duration(out[i].ToS*float64(time.Second))
			if sh.From <= to && sh.To >= from {
				out[i].Fault = true
			}
		}
	}
	return out
}
