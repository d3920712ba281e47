package faults

// The cluster faults, each a mechanism and what it needs. The catalog
// (package scenarios) decides when each acts (under what load) and what
// every mode must show.
var (
	// BrokerKill SIGKILLs a random broker and restarts it.
	BrokerKill = Mechanism{Act: brokerKill, Needs: needsProcesses, Scope: ScopeShared}
	// CoordinatorCrashAfterEndTxn is KIP-1289 case 4: EndTxn answered, the
	// markers held, the transaction coordinator's broker killed and restarted.
	CoordinatorCrashAfterEndTxn = Mechanism{Act: coordinatorCrashAfterEndTxn, Needs: needsHeldMarkers, TakesHold: true}
	// DataLeaderKillAfterEndTxn kills an input partition's leader while a
	// commit's markers to it are held: acks pending there for certain.
	DataLeaderKillAfterEndTxn = Mechanism{Act: dataLeaderKillAfterEndTxn, Needs: needsHeldMarkers, TakesHold: true}
	// ShareStateLeaderKill kills the leader of the __share_group_state
	// partition that holds an input partition's state.
	ShareStateLeaderKill = Mechanism{Act: shareStateLeaderKill, Needs: needsAll(needsProcesses, needsRoles),
		Scope: ScopeShared, Align: alignShareCoordinators}
	// DataLeaderKill kills the leader of an input or output partition.
	DataLeaderKill = Mechanism{Act: dataLeaderKill, Needs: needsAll(needsProcesses, needsRoles),
		Scope: ScopeShared, Align: alignDataLeaders}
	// Partition isolates one broker (all its links), then heals.
	Partition = Mechanism{Act: partitionFault, Needs: needsAll(needsNetwork, needsIsolate, needsBrokerLinks), Scope: ScopeShared}
	// BrokerPause freezes a random broker for a while, then thaws it.
	BrokerPause = Mechanism{Act: brokerPause, Needs: needsPause, Scope: ScopeShared}
	// LinkCut cuts the links between an input partition's leader and another
	// broker, both ways, then heals.
	LinkCut = Mechanism{Act: linkCut, Needs: needsAll(needsNetwork, needsRoles, needsBrokerLinks), Scope: ScopeShared}
	// SlowNetwork adds latency to every link for a while.
	SlowNetwork = Mechanism{Act: slowNetwork, Needs: needsAll(needsNetwork, needsLatency), Scope: ScopeShared}
	// RollingRestart restarts every broker in turn.
	RollingRestart = Mechanism{Act: rollingRestart, Needs: needsRestarts, Scope: ScopeShared}
	// RollingUpgrade moves every broker in turn to the next release, then
	// finalizes the feature levels.
	RollingUpgrade = Mechanism{Act: rollingUpgrade, Needs: needsAll(needsRestarts, needsReleases), Scope: ScopeShared, ChangesRelease: true}
	// RollingDowngrade is RollingUpgrade, then the roll back to the old
	// release, which Kafka may refuse.
	RollingDowngrade = Mechanism{Act: rollingDowngrade, Needs: needsAll(needsRestarts, needsReleases, needsNewerTarget), Scope: ScopeShared, ChangesRelease: true}
	// StrandedTxnLeaderMove moves the leaders of a stranded transaction's
	// staged acks while only the coordinator's timeout can end it.
	StrandedTxnLeaderMove = Mechanism{Act: strandedTxnLeaderMove, Needs: needsAll(needsRoles, needsSeparateBrokers), Scope: ScopeCell}
	// StaleShareStateWrite lands a share-partition leader's resent state
	// write over newer ones, then moves the leadership so the state is
	// reloaded (apache/kafka #23074).
	StaleShareStateWrite = Mechanism{Act: staleStateWrite, Needs: needsStaleStateWrite, TakesHold: true}
	// StaleDeliveryCountWrite lands a resent state write at the stored start
	// offset with a delivery-complete count below the stored one
	// (apache/kafka #23112).
	StaleDeliveryCountWrite = Mechanism{Act: staleDeliveryCountWrite, Needs: needsStaleStateWrite, TakesHold: true}
	// LateEndTxn replays a captured EndTxn after a newer transaction began.
	LateEndTxn = Mechanism{Act: lateEndTxn, Needs: needsAll(needsRoles, needsKafkaToxic), Scope: ScopeCell}
)
