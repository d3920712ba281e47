package bench

import "strings"

// Metric names (snake_case with units, CONTRACT.md "Names"), each defined
// here once; Metrics describes them. Latencies are durations; counters are
// counts.
const (
	TxnCommitDuration  = "txn_commit_duration"
	TxnTotalDuration   = "txn_total_duration"
	TxnServiceDuration = "txn_service_duration"
	ShareAckDuration   = "share_ack_duration"
	TxnAcksDuration    = "txn_acks_duration"
	// TxnAcksDuration split by request, native realization only.
	TxnAcksPrepareDuration      = "txn_acks_prepare_duration"
	AddShareAcksToTxnDuration   = "add_share_acks_to_txn_duration"
	TxnShareAcknowledgeDuration = "txn_share_acknowledge_duration"
	E2ELatency                  = "e2e_latency"
	IterationDuration           = "iteration_duration"

	Iterations        = "iterations"
	FailedIterations  = "failed_iterations"
	DroppedIterations = "dropped_iterations"
	Transactions      = "transactions"
	Records           = "records"
	EmptyPolls        = "empty_polls"
)

// MetricKind says what a metric's values are.
type MetricKind int

const (
	Latency MetricKind = iota
	Counter
)

// Where says which commands record a metric (a bit set).
type Where int

const (
	// InRun: a chaos cell's histories give it (sharechaos run, result.json).
	InRun Where = 1 << iota
	// InBench: the bench records it (sharechaos bench, bench.json).
	InBench
)

// Metric is one measured quantity: the thresholds' vocabularies, the
// commands' help and the bench report's notes all read this table.
type Metric struct {
	Name  string
	Kind  MetricKind
	Where Where
	// About says how it is measured, as the reports print it.
	About string
}

// Metrics lists every metric in report order.
var Metrics = []Metric{
	{TxnTotalDuration, Latency, InRun | InBench, "from the transaction's start (in the bench: its intended start on the open-loop schedule, so a stall raises the latency of everything it delayed) to commitTransaction returned; it includes the poll, and in transactional mode the ledger pre-check, the acks and the validation, but not the ack after the commit"},
	{TxnServiceDuration, Latency, InBench, "beginTransaction to commitTransaction returned, from the actual begin: what a harness without coordinated-omission correction would report; beside txn_total_duration it shows what waiting costs"},
	{TxnCommitDuration, Latency, InRun | InBench, "the commitTransaction (EndTxn) call alone"},
	{ShareAckDuration, Latency, InRun | InBench, "the ACCEPT after the commit, marked and flushed synchronously (explicit mode, and the ledger realization, whose ACCEPT follows its commit too); implicit mode has none: its acks ride on the next poll"},
	{TxnAcksDuration, Latency, InRun | InBench, "putting the batch's acks into the open transaction (transactional only; ledger: producing the ledger entry; native: AddShareAcksToTxn + TxnShareAcknowledge)"},
	{TxnAcksPrepareDuration, Latency, InRun | InBench, "native only: the part of txn_acks_duration before KIP-1289's first request (is a transaction open, the producer's records flushed, its id and epoch)"},
	{AddShareAcksToTxnDuration, Latency, InRun | InBench, "native only: the AddShareAcksToTxn request to the transaction coordinator, with its retries"},
	{TxnShareAcknowledgeDuration, Latency, InRun | InBench, "native only: the TxnShareAcknowledge requests to the share-partitions' leaders, sent at once, with their retries (topic ids and leaders looked up first when not cached)"},
	{E2ELatency, Latency, InBench, "per output record, from its transaction's intended start to when a read_committed tail reader first saw the output (the input is pre-seeded, so its own timestamp would only measure its place in the backlog)"},
	{IterationDuration, Latency, InBench, "one Driver iteration from its intended start"},
	{Iterations, Counter, InBench, "Driver iterations run"},
	{FailedIterations, Counter, InBench, "Driver iterations that returned an error"},
	{DroppedIterations, Counter, InBench, "ticks that found the worker's backlog full and never started (open-loop load counts them instead of slowing down)"},
	{Transactions, Counter, InBench, "transactions committed"},
	{Records, Counter, InBench, "records committed"},
	{EmptyPolls, Counter, InBench, "polls that brought nothing (retried inside the iteration): many mean the input ran dry or the group was slow to assign"},
}

// MetricNames lists the names of the metrics of kind recorded where, in
// report order.
func MetricNames(kind MetricKind, where Where) []string {
	var out []string
	for _, m := range Metrics {
		if m.Kind == kind && m.Where&where != 0 {
			out = append(out, m.Name)
		}
	}
	return out
}

// MetricNotes are "name: about" for the metrics recorded where, for a
// report's notes.
func MetricNotes(where Where) []string {
	var out []string
	for _, m := range Metrics {
		if m.Where&where != 0 {
			out = append(out, m.Name+": "+m.About+".")
		}
	}
	return out
}

// MetricList is MetricNames joined for help text.
func MetricList(kind MetricKind, where Where) string {
	return strings.Join(MetricNames(kind, where), ", ")
}
