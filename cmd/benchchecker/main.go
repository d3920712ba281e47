// Command benchchecker measures the large-run checker (make bench-checker):
// it makes or reuses a synthetic streamed read-back of RECORDS records, checks
// it in a child process whose peak resident memory (VmHWM) is the figure, and
// compares the checking rate with the rate of streaming an output topic
// read_committed from an in-process kfake broker to the compact store (the
// cell's read-back, large.ReadOutputs; a smaller topic, the rate
// extrapolated: reading is linear in records). It prints one line:
//
//	checker records=N bytes_per_record=B check_vs_read=R
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check/large"
)

func main() {
	records := flag.Int("records", 10_000_000, "records in the synthetic run")
	cache := flag.String("cache", "build/bench-checker", "where the synthetic runs are kept (one folder per size)")
	readN := flag.Int("read-records", 1_000_000, "records of the output topic whose read_committed rate is measured")
	child := flag.Bool("check-child", false, "internal: check the run in -cache and print seconds and VmHWM")
	flag.Parse()
	dir := filepath.Join(*cache, strconv.Itoa(*records))
	if *child {
		os.Exit(checkChild(dir, *records))
	}
	if err := run(dir, *records, *readN); err != nil {
		fmt.Fprintf(os.Stderr, "benchchecker: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string, records, readN int) error {
	if _, err := os.Stat(filepath.Join(dir, large.MetaFile)); err != nil {
		fmt.Fprintf(os.Stderr, "generating %d records into %s\n", records, dir)
		if err := large.Generate(dir, records); err != nil {
			return err
		}
	}
	// Reading and checking share the machine with whatever else runs, so
	// they alternate, in rounds.
	c, err := newReadBench(readN)
	if err != nil {
		return err
	}
	defer c.close()
	var checks, reads []float64
	var hwm int64
	for range rounds {
		r, err := c.rate()
		if err != nil {
			return err
		}
		reads = append(reads, r)
		secs, peak, err := checkOnce(dir, records)
		if err != nil {
			return err
		}
		checks = append(checks, float64(records)/secs)
		hwm = max(hwm, peak)
	}
	// The best round of each is the least disturbed by the machine's other
	// load; the medians are printed beside them.
	checkRate, readRate := slices.Max(checks), slices.Max(reads)
	fmt.Fprintf(os.Stderr, "check %.0f records/s best, %.0f median (rounds %.0f); read_committed %.0f records/s best, %.0f median "+
		"(%d records from kfake; rounds %.0f); median ratio %.2f; VmHWM %d KiB\n",
		checkRate, median(checks), checks, readRate, median(reads), readN, reads, median(checks)/median(reads), hwm/1024)
	fmt.Printf("checker records=%d bytes_per_record=%.1f check_vs_read=%.2f\n", records, float64(hwm)/float64(records), checkRate/readRate)
	return nil
}

const rounds = 5

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// checkOnce checks the run in a child process (so its VmHWM is the
// checker's alone) and returns its seconds and peak resident bytes.
func checkOnce(dir string, records int) (float64, int64, error) {
	cmd := exec.Command(os.Args[0], "-check-child", "-records", strconv.Itoa(records), "-cache", filepath.Dir(dir))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("check child: %w", err)
	}
	var secs float64
	var hwm int64
	if _, err := fmt.Sscanf(string(out), "%g %d", &secs, &hwm); err != nil {
		return 0, 0, fmt.Errorf("read check child's figures %q: %w", out, err)
	}
	return secs, hwm, nil
}

// checkChild checks the run and prints its seconds and peak resident bytes.
func checkChild(dir string, records int) int {
	s, _ := scenarios.Lookup("steady")
	start := time.Now()
	res, err := large.Check(dir, s.Allowed(ctp.Explicit))
	secs := time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchchecker: %v\n", err)
		return 1
	}
	for name, want := range large.Planted {
		if f := res.Anomalies[name]; f.Count != want || len(f.Examples) == 0 {
			fmt.Fprintf(os.Stderr, "benchchecker: planted %d %s, found %+v\n", want, name, f)
			return 1
		}
	}
	if res.Counts.Input != records {
		fmt.Fprintf(os.Stderr, "benchchecker: input %d, want %d\n", res.Counts.Input, records)
		return 1
	}
	fmt.Fprintf(os.Stderr, "verdict %s, counts %+v\n", res.Verdict, res.Counts)
	fmt.Printf("%g %d\n", secs, vmHWM())
	return 0
}

// vmHWM is this process's peak resident set, from /proc/self/status.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// readBench is an in-process kfake broker holding n outputs (with the
// worker's headers) committed in transactions of 1000.
type readBench struct {
	c *kfake.Cluster
	n int
}

func newReadBench(n int) (*readBench, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "out"))
	if err != nil {
		return nil, fmt.Errorf("start kfake: %w", err)
	}
	ctx := context.Background()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("out"),
		kgo.TransactionalID("bench-checker"), kgo.ProducerLinger(0))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("create producer: %w", err)
	}
	defer p.Close()
	const batch = 1000
	for lo := 0; lo < n; lo += batch {
		if err := p.BeginTransaction(); err != nil {
			c.Close()
			return nil, fmt.Errorf("begin: %w", err)
		}
		rs := make([]*kgo.Record, 0, batch)
		for i := lo; i < min(lo+batch, n); i++ {
			id := ctp.InputID(i)
			rs = append(rs, &kgo.Record{Key: []byte(id), Value: []byte(ctp.Transform(ctp.Payload(id))), Headers: []kgo.RecordHeader{
				{Key: ctp.HeaderSrc, Value: []byte(ctp.Src("in", int32(i%4), int64(i/4)))},
				{Key: ctp.HeaderWorker, Value: []byte("w1.1")}, {Key: ctp.HeaderTxn, Value: []byte(strconv.Itoa(lo/batch + 1))}}})
		}
		if err := p.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			c.Close()
			return nil, fmt.Errorf("produce: %w", err)
		}
		if err := p.EndTransaction(ctx, kgo.TryCommit); err != nil {
			c.Close()
			return nil, fmt.Errorf("commit: %w", err)
		}
	}
	return &readBench{c: c, n: n}, nil
}

func (b *readBench) close() { b.c.Close() }

// rate streams the topic read_committed into a compact store, as a cell's
// read-back does (large.ReadOutputs), in records per second. It is timed to
// the last record, not to the return: the read-back then waits 0.7 s for
// quiet, which would flatter the checker at small sizes.
func (b *readBench) rate() (float64, error) {
	tmp, err := os.MkdirTemp("", "benchchecker-read")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	st, err := large.Create(tmp, large.Meta{InputTopic: "in"})
	if err != nil {
		return 0, err
	}
	got := 0
	var last time.Time
	start := time.Now()
	err = ctp.EachRecord(context.Background(), b.c.ListenAddrs(), "out", true, func(r *kgo.Record) error {
		got++
		last = time.Now()
		return st.Output(ctp.OutputOf(r))
	})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if got != b.n {
		return 0, fmt.Errorf("read %d outputs back, want %d", got, b.n)
	}
	return float64(b.n) / last.Sub(start).Seconds(), nil
}
