package large

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Planted are the anomalies Generate plants, by the counts the checker finds:
// r-000007 and r-000401 were committed but have no output (lost after
// commit, and each leaves its transaction torn); r-000200's output is
// corrupted (a phantom-output, and a loss); r-000100 is redelivered and
// processed twice; x-000001 is no input's output; the transaction of
// r-000300..r-000309 failed its commit with its ten outputs visible.
var Planted = map[string]int{"lost-after-commit": 3, "duplicate-unexplained": 1, "phantom-output": 2,
	"aborted-read": 10, "torn-transaction": 2}

// Generate writes a synthetic streamed read-back of n records (n > 500) to
// dir, in the shape of a real explicit-mode cell: 4 input and output
// partitions, 4 workers, 10 records per transaction, every worker's history
// as the CTP loop writes it (poll, begin, send, flush, commit, ack), the share
// group done with every input; with the anomalies of Planted.
func Generate(dir string, n int) error {
	const parts, workers, batch = 4, 4, 10
	if n <= 500 {
		return fmt.Errorf("generate large run: %d records: want more than 500", n)
	}
	topic := "in"
	ends := map[int32]int64{}
	for p := range int32(parts) {
		ends[p] = int64((n - int(p) + parts - 1) / parts)
	}
	s, err := Create(dir, Meta{Mode: ctp.Explicit, DeliveryLimit: 10, InputTopic: topic, ShareStart: ends, InputEnd: ends, Records: n})
	if err != nil {
		return err
	}
	g := &generator{s: s, topic: topic, outOff: make([]int64, parts), now: 1_800_000_000_000_000_000}
	fail := func(err error) error { _ = s.Close(); g.close(); return fmt.Errorf("generate large run: %w", err) }
	for i := range n {
		if err := s.Input(ctp.Input{ID: ctp.InputID(i), Partition: int32(i % parts), Offset: int64(i / parts)}); err != nil {
			return fail(err)
		}
	}
	hdir := filepath.Join(dir, HistoriesDir)
	if err := os.MkdirAll(hdir, 0o755); err != nil {
		return fail(err)
	}
	for w := range workers {
		gw, err := g.worker(hdir, ctp.WorkerName(w+1, 1))
		if err != nil {
			return fail(err)
		}
		gw.event(history.Event{Type: history.Info, F: history.FStart, Attrs: map[string]string{
			"mode": string(ctp.Explicit), "transactional_id": "t-w" + strconv.Itoa(w+1)}})
	}
	for b := 0; b*batch < n; b++ {
		gw := g.ws[b%workers]
		lo, hi := b*batch, min((b+1)*batch, n)
		recs := make([]history.Rec, 0, batch)
		for i := lo; i < hi; i++ {
			recs = append(recs, history.Rec{ID: ctp.InputID(i), Partition: int32(i % parts), Offset: int64(i / parts), Delivery: 1})
		}
		commit := history.OK
		if lo <= 300 && 300 < hi {
			commit = history.Fail
		}
		skip := map[int]string{7: "", 401: "", 200: "corrupted"}
		if err := gw.txn(recs, commit, skip); err != nil {
			return fail(err)
		}
		if b == 20 {
			// r-000100 comes back (delivery 2) and is processed again, next
			// to an output that is no input's.
			r := history.Rec{ID: ctp.InputID(100), Partition: 0, Offset: 25, Delivery: 2}
			if err := gw.txn([]history.Rec{r}, history.OK, nil); err != nil {
				return fail(err)
			}
			if err := s.Output(ctp.Output{Key: "x-000001", Value: "v", Src: topic + "/0/0", Worker: gw.name, Txn: gw.seq,
				Partition: 0, Offset: g.outOff[0]}); err != nil {
				return fail(err)
			}
			g.outOff[0]++
		}
	}
	for _, gw := range g.ws {
		gw.event(history.Event{Type: history.Info, F: history.FStop})
	}
	if err := g.close(); err != nil {
		return fail(err)
	}
	return s.Close()
}

type generator struct {
	s      *Store
	topic  string
	outOff []int64
	now    int64
	ws     []*genWorker
}

type genWorker struct {
	g    *generator
	name string
	f    *os.File
	w    *bufio.Writer
	enc  *json.Encoder
	seq  int64
	err  error
}

func (g *generator) worker(dir, name string) (*genWorker, error) {
	f, err := os.Create(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	gw := &genWorker{g: g, name: name, f: f, w: w, enc: json.NewEncoder(w)}
	g.ws = append(g.ws, gw)
	return gw, nil
}

func (g *generator) close() error {
	var first error
	for _, gw := range g.ws {
		if gw.f == nil {
			continue
		}
		if err := gw.w.Flush(); err != nil && first == nil {
			first = err
		}
		if err := gw.f.Close(); err != nil && first == nil {
			first = err
		}
		if gw.err != nil && first == nil {
			first = gw.err
		}
		gw.f = nil
	}
	return first
}

func (gw *genWorker) event(e history.Event) {
	gw.g.now += 50_000
	e.TS, e.Worker = gw.g.now, gw.name
	if err := gw.enc.Encode(e); err != nil && gw.err == nil {
		gw.err = err
	}
}

// txn writes one explicit-mode transaction of recs, its outputs but those in
// skip (a value there replaces the output's), and its ACCEPT or RELEASE.
func (gw *genWorker) txn(recs []history.Rec, commit history.Type, skip map[int]string) error {
	gw.seq++
	t := gw.seq
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	gw.event(history.Event{Type: history.OK, F: history.FPoll, Records: recs})
	gw.event(history.Event{Type: history.Invoke, F: history.FBegin, Txn: t})
	gw.event(history.Event{Type: history.OK, F: history.FBegin, Txn: t})
	gw.event(history.Event{Type: history.Invoke, F: history.FSend, Txn: t, IDs: ids})
	gw.event(history.Event{Type: history.OK, F: history.FSend, Txn: t, IDs: ids})
	gw.event(history.Event{Type: history.OK, F: history.FFlush, Txn: t})
	gw.event(history.Event{Type: history.Invoke, F: history.FCommit, Txn: t, Records: recs})
	ce := history.Event{Type: commit, F: history.FCommit, Txn: t, Records: recs}
	ack := history.AckAccept
	if commit != history.OK {
		ce.Error, ack = "commit failed (synthetic)", history.AckRelease
	}
	gw.event(ce)
	g := gw.g
	for _, r := range recs {
		n := int(ParseID(r.ID))
		value := ctp.Transform(ctp.Payload(r.ID))
		if v, ok := skip[n]; ok {
			if v == "" {
				continue
			}
			value = v
		}
		p := int32(n % len(g.outOff))
		if err := g.s.Output(ctp.Output{Key: r.ID, Value: value, Src: ctp.Src(g.topic, r.Partition, r.Offset),
			Worker: gw.name, Txn: t, Partition: p, Offset: g.outOff[p]}); err != nil {
			return err
		}
		g.outOff[p]++
	}
	gw.event(history.Event{Type: history.Invoke, F: history.FAck, Records: recs, Ack: ack})
	gw.event(history.Event{Type: history.OK, F: history.FAck, Records: recs, Ack: ack})
	return gw.err
}
