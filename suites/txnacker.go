package suites

import "github.com/sharechaos/sharechaos/workloads/kip1289"

// newTxnAcker builds the transactional mode's realization inside a worker.
var newTxnAcker = kip1289.NewTxnAcker
