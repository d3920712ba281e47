package cell

import (
	"context"
	"github.com/sharechaos/sharechaos/result"
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
	// Deleting a share group can take Kafka ten seconds (seen on 4.2.2,
	// answered without an error): the deletion runs in the background,
	// and the run waits for every deletion before it closes the cluster
	// (waitDeletions), so the next cell does not wait for this one's.
	r.env.Deletions.Add(1)
	go func() {
		defer r.env.Deletions.Done()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 90*time.Second)
		defer cancel()
		cl, err := cluster.NewClient(r.env.Cluster, kgo.ClientID("sharechaos-teardown"))
		if err != nil {
			r.env.Log.Warn("tear down cell", "prefix", r.topo.Prefix, "err", err)
			return
		}
		defer cl.Close()
		// A broker can be down meanwhile (a cluster fault of a cell that
		// started since): ask again until the deletion went through.
		for {
			err = ctp.Teardown(dctx, cl, r.topo)
			if err == nil || dctx.Err() != nil {
				break
			}
			select {
			case <-dctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
		if err != nil {
			r.env.Log.Warn("tear down cell", "prefix", r.topo.Prefix, "err", err)
		}
	}()
	return healErr
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
