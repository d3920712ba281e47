package ctp

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Mutant is a test-only variant of the loop that breaks one promise of
// CONTRACT.md on purpose (etcd's rule: a framework change is incomplete until
// every recorded bug still reproduces). The suite must catch each with the
// scenario and mode paired with it (suites/mutants_test.go, make mutants).
//
// Only a binary built with -tags mutants reads the active mutant (from the
// environment, mutant_on.go); every other build has none, as a constant, so
// the mutant branches compile away and no CLI flag can turn one on.
type Mutant string

const (
	// MutantAckBeforeCommit: explicit mode ACCEPTs the batch right after the
	// poll, before the transaction; a crash before the commit loses it.
	MutantAckBeforeCommit Mutant = "ack-before-commit"
	// MutantAcksOutsideTxn: transactional mode ACCEPTs the batch directly
	// where it should add the acks to the transaction (and skips the
	// ledger's entry and validation); a crash before the commit loses it.
	MutantAcksOutsideTxn Mutant = "acks-outside-txn"
	// MutantSkipValidation: the ledger realization never finds a conflict, so
	// a worker that lost its records to another commits them again.
	MutantSkipValidation Mutant = "skip-validation"
	// MutantProduceTwice: the first record of every batch gets two outputs
	// in the same transaction.
	MutantProduceTwice Mutant = "produce-twice"
	// MutantDropOutput: the first record of every batch gets no output, yet
	// is acknowledged.
	MutantDropOutput Mutant = "drop-output"
	// MutantOutputOutsideTxn: the first record's output is written by a
	// plain (non-transactional) producer, visible whatever the transaction
	// does.
	MutantOutputOutsideTxn Mutant = "output-outside-txn"
	// MutantAcksOnePartition: a transaction's acks cover only the batch's
	// first share-partition (a loop or broker that handles one partition of
	// a multi-partition transaction); the others' records stay acquired
	// until their locks end, then come back and are processed again.
	MutantAcksOnePartition Mutant = "acks-one-partition"
	// MutantForgetAck: explicit mode's ACCEPT after the commit leaves out
	// the batch's first record on its first delivery, though the worker
	// runs on: the record comes back when its lock ends and is processed
	// again, a duplicate no release explains.
	MutantForgetAck Mutant = "forget-ack"
	// MutantCommitUnchecked: the transaction is committed without waiting
	// for the produce results or flushing, so outputs still buffered behind
	// a cut link (partial-produce-failure keeps its cut until the commit)
	// are not part of it.
	MutantCommitUnchecked Mutant = "commit-unchecked"
)

// Mutants lists every mutant.
func Mutants() []Mutant {
	return []Mutant{MutantAckBeforeCommit, MutantAcksOutsideTxn, MutantSkipValidation, MutantProduceTwice,
		MutantDropOutput, MutantOutputOutsideTxn, MutantCommitUnchecked, MutantAcksOnePartition, MutantForgetAck}
}

// MutantEnv carries the active mutant to worker processes of a mutants build.
const MutantEnv = "SHARECHAOS_MUTANT"

// ActiveMutant is the mutant a mutants build runs ("" in every other
// build): the orchestrator hands it to workers that are not this binary
// (the Java worker's -Dsharechaos.mutant).
func ActiveMutant() Mutant { return activeMutant() }

// mutated reports whether m is the active mutant.
func mutated(m Mutant) bool { return activeMutant() == m }

// produceOutsideTxn writes r with a plain producer of its own
// (MutantOutputOutsideTxn): the output is visible whatever becomes of the
// worker's transaction.
func (w *Worker) produceOutsideTxn(ctx context.Context, r *kgo.Record) error {
	secure, err := w.cfg.Client.Opts()
	if err != nil {
		return fmt.Errorf("create plain producer: %w", err)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(w.cfg.Bootstrap...), kgo.DefaultProduceTopic(w.cfg.OutputTopic)}, secure...)...)
	if err != nil {
		return fmt.Errorf("create plain producer: %w", err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
		return fmt.Errorf("produce outside the transaction: %w", err)
	}
	return nil
}

// firstPartitionOnly keeps the records of batch's first partition
// (MutantAcksOnePartition).
func firstPartitionOnly(batch []*kgo.Record) []*kgo.Record {
	var out []*kgo.Record
	for _, r := range batch {
		if r.Partition == batch[0].Partition {
			out = append(out, r)
		}
	}
	return out
}
