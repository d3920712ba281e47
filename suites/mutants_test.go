//go:build mutants

package suites

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// mutantCase pairs a mutant of the loop with the scenario and mode that must
// catch it, and the anomalies it is meant to cause (any of them will do: a
// loss shows as lost-after-commit or lost-unexplained by its cause).
type mutantCase struct {
	mutant   ctp.Mutant
	scenario string
	mode     ctp.AckMode
	want     []string
	// txnAcks pins the transactional realization (--txn-acks) where the
	// mutant breaks one realization's promise: on embedded, auto means
	// native, which has no ledger validation to skip.
	txnAcks string
	// consumer pins --consumer where kgo's would hide the mutant (its next
	// poll ACCEPTs whatever the loop left unmarked).
	consumer string
	// client is the worker the mutant lives in ("": the Go worker's loop;
	// the Java worker has its own, clients/java/worker's Mutant).
	client string
	// broken, instead of a loop mutant, is a deliberate defect of the
	// reference broker (SHARECHAOS_KIP1289_BROKEN): the loop is correct and
	// the broker is not.
	broken string
}

// The anomalies that show a loss or a duplicate, whatever cause names them.
var (
	wantLost = []string{verdict.AnomalyLost, verdict.AnomalyLostAfterCommit, verdict.AnomalyLostUnexplained}
	wantDup  = []string{verdict.AnomalyDuplicate, verdict.AnomalyDuplicateUnexplained, verdict.AnomalyDuplicateInOneDelivery}
)

var mutantCases = []mutantCase{
	// ACCEPTed before the transaction, then the transaction dies: lost.
	{mutant: ctp.MutantAckBeforeCommit, scenario: "crash-after-send", mode: ctp.Explicit, want: wantLost},
	// The same in the Java worker's loop (KafkaShareConsumer's acknowledge
	// and commitSync before the producer's transaction): the checker judges
	// its histories as the Go worker's.
	{mutant: ctp.MutantAckBeforeCommit, scenario: "crash-after-send", mode: ctp.Explicit, want: wantLost,
		client: workerset.ClientJava},
	// Acks outside the transaction: the crash before the commit loses them,
	// in either realization.
	{mutant: ctp.MutantAcksOutsideTxn, scenario: "crash-after-acks", mode: ctp.Transactional, want: wantLost,
		txnAcks: ctp.RealizationNative},
	{mutant: ctp.MutantAcksOutsideTxn, scenario: "crash-after-acks", mode: ctp.Transactional, want: wantLost,
		txnAcks: ctp.RealizationLedger},
	// Without the ledger's validation the race's loser commits too.
	{mutant: ctp.MutantSkipValidation, scenario: "lock-expiry-race", mode: ctp.Transactional, want: wantDup,
		txnAcks: ctp.RealizationLedger},
	// Two outputs from one transaction: never allowed, even in explicit.
	{mutant: ctp.MutantProduceTwice, scenario: "steady", mode: ctp.Explicit,
		want: []string{verdict.AnomalyDuplicateInOneDelivery}},
	// Acknowledged without its output.
	{mutant: ctp.MutantDropOutput, scenario: "steady", mode: ctp.Transactional, want: wantLost},
	// An output outside the transaction shows although the transaction died.
	{mutant: ctp.MutantOutputOutsideTxn, scenario: "crash-after-send", mode: ctp.Transactional,
		want: []string{verdict.AnomalyAbortedRead, verdict.AnomalyDuplicate, verdict.AnomalyDuplicateUnexplained}},
	// A transaction's acks of its first share-partition only: the other
	// partitions' records come back when their locks end. Caught only where
	// polls span share-partitions (native: our consumer asks every leader).
	{mutant: ctp.MutantAcksOnePartition, scenario: "steady", mode: ctp.Transactional, want: wantDup,
		txnAcks: ctp.RealizationNative},
	// The ACCEPT after the commit forgets a record while the worker runs on:
	// its redelivery is a duplicate no mode allows, not one "released".
	{mutant: ctp.MutantForgetAck, scenario: "crash-after-commit", mode: ctp.Explicit,
		want: []string{verdict.AnomalyDuplicateNeverAcked}, consumer: ctp.ConsumerSharechaos},
	// Committed without the produce results: the cut outputs are lost. In
	// explicit mode: in transactional mode the ledger's own produce waits
	// behind the cut link until the cell's drain gives up.
	{mutant: ctp.MutantCommitUnchecked, scenario: "partial-produce-failure", mode: ctp.Explicit,
		want: append(slices.Clone(wantLost), verdict.AnomalyAckWithoutOutput)},
	// A correct loop on a broker that stages only the first share-partition
	// of a TxnShareAcknowledge: the others' records come back when their
	// locks end. The row whose shape puts several share-partitions of one
	// broker into one request catches it.
	{broken: "stage-first-partition-only", scenario: "acks-of-one-broker-in-one-request", mode: ctp.Transactional, want: wantDup,
		txnAcks: ctp.RealizationNative},
}

// brokenEnv is the reference broker's environment variable naming its
// deliberate defect (refbroker/flags.go).
const brokenEnv = "SHARECHAOS_KIP1289_BROKEN"

// harnessRetries is how often a mutant whose cell was HARNESS-ERROR runs
// again.
const harnessRetries = 2

// TestMutants runs every mutant of the loop on the embedded backend with its
// paired scenario and mode, prints the table, and fails for every mutant the
// suite does not catch as ANOMALY with the anomaly it is meant to cause.
// make mutants runs it (go test -tags mutants).
func TestMutants(t *testing.T) {
	paired := map[ctp.Mutant]bool{}
	for _, c := range mutantCases {
		paired[c.mutant] = true
	}
	for _, m := range ctp.Mutants() {
		if !paired[m] {
			t.Fatalf("mutant %s has no scenario: every mutant needs one", m)
		}
	}
	only := os.Getenv("SHARECHAOS_MUTANTS")
	started := time.Now()
	// The run directories outlive a failed test, so an uncaught mutant's
	// histories can be read.
	base, err := os.MkdirTemp("", "sharechaos-mutants-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if !t.Failed() {
			_ = os.RemoveAll(base)
		}
	}()
	type row struct {
		c       mutantCase
		cell    result.Cell
		caught  bool
		took    time.Duration
		tries   int
		problem string
	}
	var rows []row
	for _, c := range mutantCases {
		if only != "" && !strings.Contains(","+only+",", ","+c.name()+",") && !strings.Contains(","+only+",", ","+string(c.mutant)+",") {
			continue
		}
		t.Setenv(ctp.MutantEnv, string(c.mutant))
		t.Setenv(brokenEnv, c.broken)
		began := time.Now()
		var (
			res   result.Result
			err   error
			tries int
		)
		// A HARNESS-ERROR judges nothing, caught or not: the mutant runs
		// again, at most harnessRetries times, and the table says so
		// (every other verdict stands as it comes). The commit-unchecked
		// mutant's HARNESS-ERROR of rounds 6 and 7 was the read-back's:
		// an aborted tail that kgo's fetches never surface
		// (workloads/ctp/tail_probe.go).
		for tries = 1; ; tries++ {
			res, err = Run(context.Background(), Options{
				Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{c.mode}, TxnAcks: c.txnAcks, Consumer: c.consumer, Seed: 1289,
					Out: filepath.Join(base, fmt.Sprintf("%s-%d", strings.NewReplacer("~", "-", ":", "-").Replace(c.name()), tries)), Clients: clientsOf(c.client)},
				Scenarios: []string{c.scenario}, Records: 600,
			})
			if err != nil || len(res.Runs) != 1 || res.Runs[0].Verdict != verdict.HarnessError || tries > harnessRetries {
				break
			}
			fmt.Printf("mutant %s: HARNESS-ERROR on try %d (%s), run again\n", c.name(), tries, res.Runs[0].Reason)
		}
		r := row{c: c, took: time.Since(began), tries: tries}
		switch {
		case err != nil:
			r.problem = "run: " + err.Error()
		case len(res.Runs) != 1:
			r.problem = fmt.Sprintf("%d cells, want 1", len(res.Runs))
		default:
			r.cell = res.Runs[0]
			r.caught = r.cell.Verdict == verdict.Anomaly && anyOf(r.cell.Anomalies, c.want)
			if !r.caught {
				r.problem = fmt.Sprintf("not caught: %s (%s), want ANOMALY with one of %v; cell in %s", r.cell.Verdict, r.cell.Reason, c.want, res.Dir)
			}
		}
		rows = append(rows, r)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tSCENARIO\tMODE\tVERDICT\tCOUNTS\tANOMALY\tCAUGHT\tTRIES\tTOOK")
	for _, r := range rows {
		c := r.cell
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tinput=%d processed=%d duplicated=%d lost=%d\t%s\t%v\t%d\t%s\n",
			r.c.name(), r.c.scenario, r.c.mode, c.Verdict, c.Input, c.Processed, c.Duplicated, c.Lost,
			anomalyList(c.Anomalies), r.caught, r.tries, r.took.Round(time.Second))
	}
	tw.Flush()
	fmt.Printf("mutants: %d run in %s\n", len(rows), time.Since(started).Round(time.Second))
	for _, r := range rows {
		if r.problem != "" {
			t.Errorf("mutant %s (%s/%s): %s", r.c.name(), r.c.scenario, r.c.mode, r.problem)
		}
	}
}

// name is the mutant, with the realization where the case pins one and
// the client where it is not the Go worker (as a cell's name spells them).
func (c mutantCase) name() string {
	if c.broken != "" {
		return "broker:" + c.broken
	}
	return string(c.mutant) + result.NameParts{Realization: c.txnAcks, Client: c.client}.Dimensions()
}

// clientsOf is --client of a case: its client, or the default.
func clientsOf(client string) []string {
	if client == "" {
		return nil
	}
	return []string{client}
}

func anyOf(found map[string]verdict.Found, want []string) bool {
	for _, w := range want {
		if found[w].Count > 0 {
			return true
		}
	}
	return false
}

func anomalyList(found map[string]verdict.Found) string {
	var out []string
	for name, f := range found {
		if f.Count > 0 {
			out = append(out, fmt.Sprintf("%s %d", name, f.Count))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}
