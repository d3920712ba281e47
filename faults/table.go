package faults

import (
	"time"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// noTxnAcks: case 3 only exists where the acks are part of the transaction.
const noTxnAcks = "no acks inside the transaction in this mode (ORACLE.md case 3 is n/a)"

// Table is every fault, one row each. Adding a corner case is adding a row.
var Table = []Fault{
	{Name: "steady", Case: "baseline", Target: TargetNone},
	{Name: "crash-before-begin", Case: "1", Target: TargetWorker, Point: ctp.PointBeforeBegin, Action: ctp.ActionKill},
	{Name: "crash-after-send", Case: "2", Target: TargetWorker, Point: ctp.PointAfterSend, Action: ctp.ActionKill},
	{Name: "crash-after-send-fresh-id", Case: "2 (fresh transactional id)", Target: TargetWorker, Point: ctp.PointAfterSend, Action: ctp.ActionKill, FreshID: true},
	{Name: "crash-after-acks", Case: "3", Target: TargetWorker, Point: ctp.PointAfterAcks, Action: ctp.ActionKill,
		NotApplicable: map[ctp.AckMode]string{ctp.Explicit: noTxnAcks, ctp.Implicit: noTxnAcks}},
	{Name: "crash-after-commit", Case: "4b", Target: TargetWorker, Point: ctp.PointAfterCommit, Action: ctp.ActionKill},
	{Name: "zombie-fenced", Case: "5", Target: TargetWorker, Point: ctp.PointAfterSend, Action: ctp.ActionStop},
	{Name: "explicit-abort", Case: "6", Target: TargetWorker, Point: ctp.PointBeforeCommit, Action: ctp.ActionAbort},
	{Name: "partial-produce-failure", Case: "7", Target: TargetWorker, Point: ctp.PointBeforeSend, Action: ctp.ActionFailProduce,
		DeliveryTimeout: 5 * time.Second},
	{Name: "lock-expiry-during-txn", Case: "beyond", Target: TargetWorker, Point: ctp.PointBeforeCommit, Action: ctp.ActionStall},
	{Name: "broker-kill", Case: "beyond", Target: TargetCluster, Inject: underLoad(0.2, brokerKill), Needs: needsProcesses},

	{Name: coordinatorCrashName, Case: "4", Target: TargetCluster, Inject: coordinatorCrashAfterEndTxn, Needs: needsCase4},
	{Name: shareStateLeaderKillName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.2, shareStateLeaderKill),
		Needs: needsAll(needsProcesses, needsRoles)},
	{Name: dataLeaderKillName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.2, dataLeaderKill),
		Needs: needsAll(needsProcesses, needsRoles)},
	{Name: partitionName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.2, partitionFault),
		Needs: needsAll(needsNetwork, needsBrokerLinks)},
	{Name: slowNetworkName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.1, slowNetwork), Needs: needsNetwork},
	{Name: rollingRestartName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.1, rollingRestart), Needs: needsRestarts},
	{Name: lateEndTxnName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.1, lateEndTxn),
		Needs: needsAll(needsRoles, needsKafkaToxic)},
	{Name: randomScheduleName, Case: "beyond", Target: TargetCluster, Inject: underLoad(0.1, randomSchedule), Needs: needsSchedule},
}

// Lookup finds a fault by name.
func Lookup(name string) (Fault, bool) {
	for _, f := range Table {
		if f.Name == name {
			return f, true
		}
	}
	return Fault{}, false
}

// Names lists the table's names in order.
func Names() []string {
	out := make([]string, len(Table))
	for i, f := range Table {
		out[i] = f.Name
	}
	return out
}
