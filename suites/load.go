package suites

import "github.com/sharechaos/sharechaos/scenarios"

// withLoad is o with a scenario's own load and cluster settings in place of
// the run's (zero fields keep the run's). A scenario lock shorter than the
// run's transaction timeout takes the default timeout for that lock, so the
// ORACLE.md rule (a transaction never outlives its records' locks) holds.
func (o Options) withLoad(l scenarios.Load) Options {
	if l.Records > 0 {
		o.Records = l.Records
	}
	if l.Workers > 0 {
		o.Workers = l.Workers
	}
	if l.Batch > 0 {
		o.MaxRecords = l.Batch
	}
	if l.Partitions > 0 {
		o.Partitions = l.Partitions
	}
	if l.Lock > 0 {
		o.Lock = l.Lock
		if o.TxnTimeout >= o.Lock {
			o.TxnTimeout = o.Lock * 2 / 3
		}
	}
	return o
}
