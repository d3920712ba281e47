package cell

import (
	"context"
	"github.com/sharechaos/sharechaos/result"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// cleanUp runs when a cell ends, however it ends (Ctrl-C included): it heals
// whatever the cell's fault left broken (the external backend's hooks), then
// deletes the cell's topics and share group unless --keep-topics, so a run
// leaves a long-lived cluster as it found it. A failed heal is returned
// (failOnHeal); a failed deletion is logged, not judged: the verdict is
// already decided by what was observed.
func (r *run) cleanUp(ctx context.Context) error {
	if r.topo.Prefix == "" {
		return nil // the cell never got to its topics
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	healErr := harness.HealCluster(cctx, r.env.Cluster, r.topo.Prefix)
	if healErr != nil {
		r.env.Log.Error("heal after cell", "cell", r.plan.Name(), "err", healErr)
	}
	if r.s.KeepTopics {
		return healErr
	}
	// The deletions run in the background, and the run waits for every one
	// before it closes the cluster, so the next cell does not wait for this
	// one's. A cluster-fault row waits for the topic deletions before its
	// load; the share group's deletion, which can take Kafka ten seconds
	// (seen on 4.2.2 and 4.4.0 nightlies, answered without an error), only
	// delays the close (a nightly's rows waited ~10 s each on it).
	r.env.Deletions.Add(1)
	r.env.GroupDeletions.Add(1)
	go func() {
		defer r.env.GroupDeletions.Done()
		topicsDone := sync.OnceFunc(r.env.Deletions.Done)
		defer topicsDone()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 90*time.Second)
		defer cancel()
		cl, err := cluster.NewClient(r.env.Cluster, kgo.ClientID("sharechaos-teardown"))
		if err != nil {
			r.env.Log.Warn("tear down cell", "prefix", r.topo.Prefix, "err", err)
			return
		}
		defer cl.Close()
		r.retryDeletion(dctx, "topics", func() error { return ctp.DeleteTopicsOf(dctx, cl, r.topo) })
		topicsDone()
		r.retryDeletion(dctx, "share group", func() error { return ctp.DeleteGroupOf(dctx, cl, r.topo) })
	}()
	return healErr
}

// retryDeletion runs del until it goes through or ctx ends: a broker can be
// down meanwhile (a cluster fault of a cell that started since). A deletion
// that never went through is logged, not judged.
func (r *run) retryDeletion(ctx context.Context, what string, del func() error) {
	for {
		err := del()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			r.env.Log.Warn("tear down cell", "prefix", r.topo.Prefix, "what", what, "err", err)
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// failOnHeal makes a cell whose heal failed a HARNESS-ERROR: the cluster
// may be left broken, and the next cell would test a broken cluster.
func failOnHeal(cell *result.Cell, healErr error) {
	if healErr == nil {
		return
	}
	if cell.Verdict != verdict.HarnessError {
		cell.Notes = append(cell.Notes, "verdict before the failed heal: "+string(cell.Verdict)+" "+cell.Reason)
	}
	cell.Verdict, cell.Reason = verdict.HarnessError, "heal after the cell: "+healErr.Error()
}
