package cell

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// workers is the cell's worker set, armed as its row's worker fault says:
// a slot and a batch drawn from the cell's seed, the arm on the timeline.
func (r *run) workers() *workerset.Set {
	s := r.s
	cfg := workerset.Config{
		Base: ctp.WorkerConfig{
			Bootstrap: r.env.Cluster.Bootstrap(), Group: r.topo.Group, InputTopic: r.topo.InputTopic,
			OutputTopic: r.topo.OutputTopic, LedgerTopic: r.topo.LedgerTopic,
			Mode: r.plan.Mode, Realization: r.plan.Realization, MaxRecords: s.Batch,
			TxnTimeout: ctp.Duration(s.TxnTimeout), Client: cluster.ClientConfigOf(r.env.Cluster), Consumer: r.plan.Consumer,
			AddShareAcksToTxnKey: s.KIP1289Keys.AddShareAcksToTxn, TxnShareAcknowledgeKey: s.KIP1289Keys.TxnShareAcknowledge,
			MemberTags: s.MemberTags, Poison: r.poison(),
		},
		Dir: r.dir, Slots: s.Workers, Topology: r.topo, Client: r.plan.Client, Remote: r.env.Remote,
	}
	wf := r.plan.Scenario.Worker
	if wf == nil {
		return &workerset.Set{Config: cfg}
	}
	cfg.Base.DeliveryTimeout = ctp.Duration(wf.DeliveryTimeout)
	cfg.FreshID = wf.FreshID
	cfg.ArmSlot = 1 + r.rng.IntN(s.Workers)
	cfg.Arm = ctp.Arm{Fault: r.plan.Name(), Point: wf.Point, Action: wf.Action, Batch: r.armBatch()}
	if wf.Stall != nil {
		cfg.Arm.Stall = ctp.Duration(wf.Stall(s.Lock))
	}
	if wf.TxnTimeout != nil {
		cfg.Base.TxnTimeout = ctp.Duration(wf.TxnTimeout(s.Lock))
	}
	if wf.Renew {
		// A third of the lock: two renewals may be lost or slow before
		// the lock ends.
		cfg.Base.Renew = &ctp.Renew{Every: ctp.Duration(s.Lock / 3), Lock: ctp.Duration(s.Lock)}
	}
	_ = r.timeline.Record(history.Event{Type: history.Info, F: history.FArm, Fault: r.plan.Name(), Point: string(cfg.Arm.Point),
		Attrs: map[string]string{"slot": fmt.Sprint(cfg.ArmSlot), "batch": fmt.Sprint(cfg.Arm.Batch), "action": string(cfg.Arm.Action)}})
	return &workerset.Set{Config: cfg}
}

// armBatch draws k, the non-empty batch at which the armed worker fires,
// bounded so that it certainly comes: a worker gets about
// records/(workers*batch) batches; k stays within a quarter of that.
func (r *run) armBatch() int {
	per := r.s.Records / (r.s.Workers * int(r.s.Batch))
	bound := min(max(per/4, 1), 10)
	return 1 + r.rng.IntN(bound)
}
