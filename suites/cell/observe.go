package cell

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// observe reads what the cell left: inputs, committed outputs, the share
// group's end state and every history.
func (r *run) observe(ctx context.Context, admin *kgo.Client) (*ctp.Observation, error) {
	bs := r.env.Cluster.Bootstrap()
	// The three reads are independent: run them at once (each waits out
	// its own quiet period at the end of its topic).
	var (
		wg                     sync.WaitGroup
		inputs                 []ctp.Input
		outputs                []ctp.Output
		progress               ctp.ShareOffsets
		inErr, outErr, progErr error
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		inputs, inErr = ctp.ReadInputs(ctx, bs, r.topo.InputTopic, cluster.ClientOpts(r.env.Cluster)...)
	}()
	go func() {
		defer wg.Done()
		outputs, outErr = ctp.ReadOutputs(ctx, bs, r.topo.OutputTopic, cluster.ClientOpts(r.env.Cluster)...)
	}()
	go func() {
		defer wg.Done()
		progress, progErr = shareProgressSettled(ctx, admin, r.topo.Group, r.topo.InputTopic)
	}()
	wg.Wait()
	// A hanging transaction on an output partition is the system's doing,
	// judged as an anomaly on what could be read (ctp.HangingError).
	var hanging *ctp.HangingError
	if errors.As(outErr, &hanging) {
		outErr = nil
	}
	if err := errors.Join(inErr, outErr, progErr); err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	var err error
	obs := &ctp.Observation{Mode: r.plan.Mode, Realization: r.plan.Realization, InputTopic: r.topo.InputTopic, Inputs: inputs, Outputs: outputs,
		ShareStart: progress.Start, ShareStartReported: progress.Reported, ShareStartRule: progress.Rule, InputEnd: progress.End,
		DeliveryLimit: harness.DeliveryLimit, HangingOutputs: hangingPartitions(hanging), Poison: r.poison()}
	if r.plan.Scenario.DLQ {
		obs.DLQTopic = r.topo.DLQTopic
		if obs.DLQ, err = r.readDLQ(ctx, inputs); err != nil {
			return nil, fmt.Errorf("observe: %w", err)
		}
	}
	// Read after the dead letters: the orchestrator's timeline has their
	// event.
	if obs.History, err = history.ReadDir(filepath.Join(r.dir, "histories")); err != nil && !history.IsNoHistory(err) {
		return nil, fmt.Errorf("observe: %w", err)
	}
	return obs, nil
}

// shareProgressSettled reads the share group's end state, asking again for a
// while when a request fails: right after a cluster fault healed, the
// admin client's connection to a restarted broker can time out once (seen
// on Kafka 4.2.2 after case 4: an i/o timeout on DescribeShareGroupOffsets)
// although the broker answers the next request.
func shareProgressSettled(ctx context.Context, admin *kgo.Client, group, topic string) (ctp.ShareOffsets, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		o, err := ctp.ReadShareOffsets(rctx, admin, group, topic)
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return o, err
		}
		select {
		case <-ctx.Done():
			return ctp.ShareOffsets{}, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func hangingPartitions(h *ctp.HangingError) []ctp.HangingPartition {
	if h == nil {
		return nil
	}
	return h.Partitions
}
