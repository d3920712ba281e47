// Package conformance is one suite of KIP-1289's protocol, run against every
// broker that speaks it: the reference broker (kfake with KIP-1289, the
// embedded backend's broker) and Apache Kafka with KIP-1289 built in
// (sharechaos/kafka-kip1289, the docker backend). Each case is a row of
// Cases: a sequence of plain share-group and transactional requests whose
// outcome is observed over the wire only (a member's ShareFetch and
// ShareAcknowledge, the group's start offset), so that one table drives both
// brokers.
//
// Where the two brokers answer differently, the case says so with Differs:
// each broker's own answer is asserted, and the difference is a docs/FINDINGS.md
// entry, not a skipped test.
//
// The test runner (conformance_test.go) starts the brokers: a broker per
// pending-lock policy and record lock the cases need (Settings).
package conformance
