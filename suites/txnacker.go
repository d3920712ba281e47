package suites

import (
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/scsource"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// workerDeps build the transactional mode's realization and our share
// consumer inside a worker.
var workerDeps = ctp.Deps{NewTxnAcker: kip1289.NewTxnAcker, OpenSharechaos: scsource.Open, ProducerOpts: kip1289.ProducerOpts}
