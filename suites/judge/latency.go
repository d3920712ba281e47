package judge

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Latency builds the cell's histograms from its histories: every timed
// event carries its duration, so a worker SIGKILLed mid-run loses nothing it
// measured, and the orchestrator needs nothing from the workers but histories.
func Latency(h history.History) map[string]*bench.Histogram {
	hs := map[string]*bench.Histogram{}
	rec := func(name string, d time.Duration) {
		if hs[name] == nil {
			hs[name] = bench.NewHistogram()
		}
		hs[name].Record(d)
	}
	for _, e := range h {
		if e.Type != history.OK {
			continue
		}
		switch e.F {
		case history.FCommit:
			rec(bench.TxnCommitDuration, time.Duration(e.DurNS))
			if e.TxnNS > 0 {
				rec(bench.TxnTotalDuration, time.Duration(e.TxnNS))
			}
		case history.FAck:
			if e.Ack == history.AckAccept {
				rec(bench.ShareAckDuration, time.Duration(e.DurNS))
			}
		case history.FTxnAcks:
			rec(bench.TxnAcksDuration, time.Duration(e.DurNS))
			for metric, attr := range ackRequestTimes {
				if ns, err := strconv.ParseInt(e.Attrs[attr], 10, 64); err == nil && ns > 0 {
					rec(metric, time.Duration(ns))
				}
			}
		}
	}
	return hs
}

// ackRequestTimes are the metrics a native txn-acks event's attributes give.
var ackRequestTimes = map[string]string{
	bench.TxnAcksPrepareDuration:      ctp.AttrAcksPrepareNS,
	bench.AddShareAcksToTxnDuration:   ctp.AttrAddShareAcksToTxnNS,
	bench.TxnShareAcknowledgeDuration: ctp.AttrTxnShareAcknowledgeNS,
}

// SummarizeLatency fills the cell's latency figures and writes one .hgrm per
// metric into the cell directory dir. h is the cell's history when the
// caller has already read it; nil reads it from dir.
func SummarizeLatency(cell *result.Cell, dir string, h history.History) {
	if h == nil {
		var err error
		if h, err = history.ReadDir(filepath.Join(dir, "histories")); err != nil {
			return
		}
	}
	hs := Latency(h)
	cell.Latency = map[string]result.Percentiles{}
	for name, hist := range hs {
		cell.Latency[name] = hist.Percentiles()
		if err := hist.WriteHGRMFile(filepath.Join(dir, name+".hgrm")); err != nil {
			cell.Notes = append(cell.Notes, "write "+name+".hgrm: "+err.Error())
		}
	}
	if p, ok := cell.Latency[bench.TxnCommitDuration]; ok {
		cell.CommitP50Ms, cell.CommitP99Ms = p.P50, p.P99
	}
	if p, ok := cell.Latency[bench.TxnTotalDuration]; ok {
		cell.TxnP50Ms, cell.TxnP99Ms = p.P50, p.P99
	}
}
