package large

import (
	"fmt"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Planted are the anomalies Generate plants, by the counts the checker must
// find: r-000007 and r-000401 have no output (lost, and each leaves its
// transaction torn), r-000200's output is corrupted (a phantom-output and a
// loss), r-000100 is processed twice, x-000001 is no input's output, and the
// transaction of r-000300 aborted with its ten outputs visible.
var Planted = map[string]int{"lost": 3, "duplicate": 1, "phantom-output": 2, "aborted-read": 10, "torn-transaction": 2}

// Generate writes a synthetic streamed read-back of n records to dir, in the
// shape of a real cell: 4 input and output partitions, 4 workers, 10 records
// per transaction, the share group done with every input, outputs in the
// order their transactions committed; with the anomalies of Planted.
func Generate(dir string, n int) error {
	const parts, workers, batch = 4, 4, 10
	topic := "in"
	ends := map[int32]int64{}
	for p := range int32(parts) {
		ends[p] = int64((n - int(p) + parts - 1) / parts)
	}
	s, err := Create(dir, Meta{Mode: ctp.Explicit, InputTopic: topic, ShareStart: ends, InputEnd: ends, Records: n})
	if err != nil {
		return err
	}
	fail := func(err error) error { _ = s.Close(); return fmt.Errorf("generate large run: %w", err) }
	for i := range n {
		if err := s.Input(ctp.Input{ID: ctp.InputID(i), Partition: int32(i % parts), Offset: int64(i / parts)}); err != nil {
			return fail(err)
		}
	}
	outOff := make([]int64, parts)
	out := func(i int, worker string, txn int64, value string) error {
		id := ctp.InputID(i)
		p := int32(i % parts)
		o := ctp.Output{Key: id, Value: value, Src: ctp.Src(topic, p, int64(i/parts)), Worker: worker, Txn: txn,
			Partition: p, Offset: outOff[p]}
		outOff[p]++
		return s.Output(o)
	}
	seq := make([]int64, workers)
	for b := 0; b*batch < n; b++ {
		w := b % workers
		seq[w]++
		worker := ctp.WorkerName(w+1, 1)
		lo, hi := b*batch, min((b+1)*batch, n)
		outcome := txnCommitted
		if lo <= 300 && 300 < hi {
			outcome = txnAborted
		}
		for i := lo; i < hi; i++ {
			value := ctp.Transform(ctp.Payload(ctp.InputID(i)))
			switch i {
			case 7, 401:
				continue // lost; 401's transaction is torn
			case 200:
				value = "corrupted"
			}
			if err := out(i, worker, seq[w], value); err != nil {
				return fail(err)
			}
		}
		if err := s.Txn(worker, seq[w], outcome, uint32(hi-lo)); err != nil {
			return fail(err)
		}
		if b == 20 && n > 100 {
			// A later transaction processes r-000100 again: a duplicate.
			seq[w]++
			if err := out(100, worker, seq[w], ctp.Transform(ctp.Payload(ctp.InputID(100)))); err != nil {
				return fail(err)
			}
			if err := s.Output(ctp.Output{Key: "x-000001", Value: "v", Src: topic + "/0/0", Worker: worker, Txn: seq[w],
				Partition: 0, Offset: outOff[0]}); err != nil {
				return fail(err)
			}
			outOff[0]++
			if err := s.Txn(worker, seq[w], txnCommitted, 2); err != nil {
				return fail(err)
			}
		}
	}
	return s.Close()
}
