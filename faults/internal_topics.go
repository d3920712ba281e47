package faults

// Kafka's internal topics whose partition leaders are coordinators.
const (
	offsetsTopic    = "__consumer_offsets"  // group coordinators
	shareStateTopic = "__share_group_state" // share coordinators
	txnStateTopic   = "__transaction_state" // transaction coordinators
)
