package reports

import (
	"fmt"
	"strconv"

	"github.com/sharechaos/sharechaos/bench"

	"github.com/sharechaos/sharechaos/result"
)

// The load curves and the floor, as tables both summary.md and report.html
// print: the cells are formatted once, here.

// cellTable is a table of formatted cells under a title, with a line of
// words per row group below it.
type cellTable struct {
	Title  string
	Header []string
	Rows   [][]string
	Words  []string
}

var floorHeader = []string{"link latency", "produce acks=all p50 / p99 ms", "bare transaction p50 / p99 ms", "its commit p50 / p99 ms", "samples"}

// floorTable is the floors, one row per link latency.
func floorTable(b result.Bench) cellTable {
	t := cellTable{Title: "Floor: what the cluster costs", Header: floorHeader}
	for _, f := range b.Floors {
		if f.Error != "" {
			t.Rows = append(t.Rows, []string{f.LinkLatency, "not measured: " + f.Error, "-", "-", "-"})
			continue
		}
		t.Rows = append(t.Rows, []string{f.LinkLatency, pair(f.Produce), pair(f.Txn), pair(f.TxnCommit),
			fmt.Sprintf("%d + %d", f.Produce.Count, f.Txn.Count)})
	}
	return t
}

func pair(p result.Percentiles) string {
	return fmt.Sprintf("%s / %s", msWords(round3(p.P50)), msWords(round3(p.P99)))
}

var curveHeader = []string{"mode", "target txn/s", "achieved txn/s", "kept", "txn_total p50 / p99 ms", "txn_commit p50 / p99 ms", "total p50 x floor", "commit p50 x floor", "dropped", "repeats"}

// curveTables are the curves per batch size and (link latency,
// partitions), a row per mode and rate, the saturation in words below.
func curveTables(b result.Bench) []cellTable {
	var out []cellTable
	index := map[string]int{}
	for _, c := range b.Curves {
		title := fmt.Sprintf("batch %d", c.Batch)
		if c.LinkLatency != "" {
			title += fmt.Sprintf(" (link latency %s, %d partitions)", c.LinkLatency, c.Partitions)
		}
		i, ok := index[title]
		if !ok {
			i = len(out)
			index[title] = i
			out = append(out, cellTable{Title: title, Header: curveHeader})
		}
		for _, pt := range c.Points {
			target, kept := strconv.FormatFloat(pt.TargetTps, 'f', -1, 64), "no"
			switch {
			case pt.TargetTps <= 0:
				target, kept = "closed loop", "-"
			case pt.Kept:
				kept = "yes"
			}
			out[i].Rows = append(out[i].Rows, []string{c.Mode, target, strconv.FormatFloat(round3(pt.AchievedTps), 'f', -1, 64), kept,
				fmt.Sprintf("%s / %s", msWords(round3(pt.TotalP50Ms)), msWords(round3(pt.TotalP99Ms))),
				fmt.Sprintf("%s / %s", msWords(round3(pt.CommitP50Ms)), msWords(round3(pt.CommitP99Ms))),
				times(pt.TotalXFloor), times(pt.CommitXFloor), strconv.FormatInt(pt.Dropped, 10), strconv.Itoa(pt.Repeats)})
		}
		if c.Words != "" {
			out[i].Words = append(out[i].Words, c.Mode+": "+c.Words)
		}
	}
	return out
}

// times prints a multiple: "1.27x", "-" when there is none.
func times(x float64) string {
	if x <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x)
}

// curvesIntro says how to read the curve tables.
func curvesIntro(b result.Bench) string {
	return fmt.Sprintf("Each mode at each target rate: the medians over its repeats. A rate is kept when the mode committed at least %.0f%% of it; the highest kept is where the mode saturates. The multiples of the floor divide a p50 by the bare transaction's (total) and its commit's, measured at the same link latency in this run.", 100*(1-b.KeptTolerance))
}

// benchCell is where a run's figures belong in a table: its sweep point,
// its mode (with realization) and its batch size.
type benchCell struct {
	point, mode string
	batch       int
}

func cellOf(r result.BenchRun) benchCell { return benchCell{r.Point(), r.Label(), r.Batch} }

// name is the mode, with the sweep point when there is one.
func (k benchCell) name() string {
	if k.point == "" {
		return k.mode
	}
	return k.mode + " (" + k.point + ")"
}

var attributionHeader = []string{"mode", "batch", "txn_total p50 ms", "baseline's", "extra ms", "txn_acks p50 ms", "before the requests", "AddShareAcksToTxn", "TxnShareAcknowledge", "txn_commit p50 ms", "baseline's", "repeats"}

// attributionTable says where a realization's time goes, request by
// request, at each sweep point and batch size where one timed its requests
// (native): medians over the repeats of each p50, beside the baseline's
// txn_total and txn_commit at the same point and batch.
func attributionTable(b result.Bench) (cellTable, bool) {
	t := cellTable{Title: "KIP-1289's cost, request by request", Header: attributionHeader}
	var order []benchCell
	p50s := map[benchCell]map[string][]float64{}
	for _, r := range b.Runs {
		if r.Error != "" {
			continue
		}
		k := cellOf(r)
		if _, ok := p50s[k]; !ok {
			p50s[k] = map[string][]float64{}
			order = append(order, k)
		}
		for _, m := range []string{bench.TxnTotalDuration, bench.TxnCommitDuration, bench.TxnAcksDuration, bench.TxnAcksPrepareDuration,
			bench.AddShareAcksToTxnDuration, bench.TxnShareAcknowledgeDuration} {
			if p, ok := r.Latency[m]; ok && p.Count > 0 {
				p50s[k][m] = append(p50s[k][m], p.P50)
			}
		}
	}
	med := func(k benchCell, m string) float64 { return medianOf(p50s[k][m]) }
	for _, k := range order {
		if len(p50s[k][bench.AddShareAcksToTxnDuration]) == 0 {
			continue
		}
		base := benchCell{k.point, b.Baseline, k.batch}
		mode := k.name()
		extra := "-"
		if bt := med(base, bench.TxnTotalDuration); bt > 0 {
			extra = msWords(round3(med(k, bench.TxnTotalDuration) - bt))
		}
		t.Rows = append(t.Rows, []string{mode, strconv.Itoa(k.batch), msWords(round3(med(k, bench.TxnTotalDuration))), msWords(round3(med(base, bench.TxnTotalDuration))), extra,
			msWords(round3(med(k, bench.TxnAcksDuration))), msWords(round3(med(k, bench.TxnAcksPrepareDuration))),
			msWords(round3(med(k, bench.AddShareAcksToTxnDuration))), msWords(round3(med(k, bench.TxnShareAcknowledgeDuration))),
			msWords(round3(med(k, bench.TxnCommitDuration))), msWords(round3(med(base, bench.TxnCommitDuration))), strconv.Itoa(len(p50s[k][bench.AddShareAcksToTxnDuration]))})
	}
	return t, len(t.Rows) > 0
}

// attributionIntro says how to read the attribution table.
func attributionIntro(b result.Bench) string {
	return fmt.Sprintf("Medians over the repeats of each p50, timed by the client: txn_acks_duration is the acks' send into the transaction, split into the checks and flush before the requests, the AddShareAcksToTxn to the transaction coordinator and the TxnShareAcknowledge requests to the share-partitions' leaders; \"extra\" is txn_total p50 minus %s's at the same point and batch. The parts' p50s need not add up to the whole's.", b.Baseline)
}
