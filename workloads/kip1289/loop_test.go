package kip1289_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// The ledger realization inside the lead's CTP loop (ctp.RunWorker, in
// process, on kfake): several workers drain one share group, the checker
// judges the cell, and the commit latency of transactional (ledger) and
// explicit mode is printed side by side. No crash here (workers are
// goroutines); the crash points run as processes in the suite.
var (
	loopRecords = flag.Int("loop.records", 400, "input records per cell of TestLedgerInTheCTPLoop")
	loopWorkers = flag.Int("loop.workers", 3, "workers per cell of TestLedgerInTheCTPLoop")
)

func TestLedgerInTheCTPLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CTP loop for a few seconds")
	}
	records, workers := *loopRecords, *loopWorkers
	c, err := kfake.NewCluster(kfake.NumBrokers(1),
		kfake.BrokerConfigs(map[string]string{"share.record.lock.sweep.interval.ms": "100"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seeds := c.ListenAddrs()

	var lines []string
	for _, mode := range []ctp.AckMode{ctp.Transactional, ctp.Explicit} {
		obs, figures := runCell(t, seeds, mode, records, workers)
		allowed, err := scenarios.AllowedFor(mode, "steady")
		if err != nil {
			t.Fatal(err)
		}
		res := check.Run(obs, allowed)
		if res.Verdict != verdict.Pass || res.Counts.Duplicated != 0 || res.Counts.Lost != 0 || res.Counts.Processed != records {
			t.Errorf("%s: %s (%s) counts %+v", mode, res.Verdict, res.Reason, res.Counts)
		}
		lines = append(lines, fmt.Sprintf("%-13s %s", mode, figures))
	}
	for _, l := range lines {
		t.Log(l)
	}
}

func runCell(t *testing.T, seeds []string, mode ctp.AckMode, records, workers int) (ctp.Observation, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	top := ctp.NewTopology("loop-"+string(mode), 2, 1, 1)
	admin, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := ctp.Setup(ctx, admin, top, ctp.GroupConfig{DeliveryLimit: 10}); err != nil {
		t.Fatal(err)
	}
	if err := ctp.Seed(ctx, seeds, top.InputTopic, records); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	realization := ""
	if mode == ctp.Transactional {
		realization = kip1289.RealizationLedger
	}
	runCtx, stop := context.WithCancel(ctx)
	began := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for slot := range workers {
		cfg := ctp.WorkerConfig{
			Bootstrap: seeds, Group: top.Group, InputTopic: top.InputTopic, OutputTopic: top.OutputTopic,
			LedgerTopic: top.LedgerTopic, TransactionalID: top.TransactionalID(slot), Mode: mode,
			Realization: realization, Slot: slot, HistoryPath: filepath.Join(dir, ctp.WorkerName(slot, 0)+".jsonl"),
			MaxRecords: 20,
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[slot] = ctp.RunWorker(runCtx, cfg, ctp.Deps{NewTxnAcker: kip1289.NewTxnAcker})
		}()
	}
	start, end := waitDrained(ctx, t, admin, top)
	drained := time.Since(began)
	stop()
	wg.Wait()
	for slot, err := range errs {
		if err != nil {
			t.Errorf("%s worker %d: %v", mode, slot, err)
		}
	}
	h, err := history.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := ctp.ReadInputs(ctx, seeds, top.InputTopic)
	if err != nil {
		t.Fatal(err)
	}
	outputs, err := ctp.ReadOutputs(ctx, seeds, top.OutputTopic)
	if err != nil {
		t.Fatal(err)
	}
	obs := ctp.Observation{Mode: mode, Realization: realization, Inputs: inputs, Outputs: outputs,
		ShareStart: start, InputEnd: end, DeliveryLimit: 10, History: h}
	return obs, fmt.Sprintf("drained in %v (%.0f records/s)  %s", drained.Round(time.Millisecond),
		float64(records)/drained.Seconds(), commitFigures(h))
}

func waitDrained(ctx context.Context, t *testing.T, cl *kgo.Client, top ctp.Topology) (start, end map[int32]int64) {
	t.Helper()
	for {
		start, end, err := ctp.ShareProgress(ctx, cl, top.Group, top.InputTopic)
		if err == nil && ctp.Drained(start, end) {
			return start, end
		}
		select {
		case <-ctx.Done():
			t.Fatalf("share group not drained: start %v end %v err %v", start, end, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// commitFigures summarizes the committed transactions' commit and whole
// transaction durations from the histories.
func commitFigures(h history.History) string {
	var commit, txn []time.Duration
	for _, e := range h {
		if e.F != history.FCommit || e.Type != history.OK {
			continue
		}
		commit = append(commit, time.Duration(e.DurNS))
		txn = append(txn, time.Duration(e.TxnNS))
	}
	q := func(ds []time.Duration, p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return ds[int(p*float64(len(ds)-1))]
	}
	return fmt.Sprintf("txns=%d commit p50=%v p99=%v  txn p50=%v p99=%v",
		len(commit), q(commit, 0.5), q(commit, 0.99), q(txn, 0.5), q(txn, 0.99))
}
