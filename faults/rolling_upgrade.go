package faults

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
)

// Attributes of rolling-upgrade's events that its row's evidence reads.
const (
	AttrFrom       = "from"
	AttrTo         = "to"
	AttrLogged     = "logged_version"
	ActionSwap     = "swap release"
	ActionSwapped  = "on new release"
	ActionRefused  = "refused"
	AttrRefusal    = "refusal"
	AttrRolledBack = "rolled_back"
	// AttrPhase marks rolling-downgrade's second roll, back to the old
	// release (PhaseDowngrade), apart from its upgrade.
	AttrPhase      = "phase"
	PhaseDowngrade = "downgrade"
)

// rollingUpgrade moves every broker in turn to the cluster's upgrade
// target, under load: a graceful stop, the next release's binaries on the
// broker's own data (cluster.Releases.SwapRelease), then the wait until
// every partition is fully replicated again before the next broker goes
// (as rolling-restart). Then it proves each broker's release (a release
// event per broker: the version it logged, what its ApiVersions
// advertises) and finalizes the feature levels (finalizeFeatures), which
// Kafka allows only once every broker runs the new release.
//
// A broker that refuses the target (a downgrade onto storage a newer
// release formatted) is put back on its release by SwapRelease; the roll
// stops there, before any other broker moved, the heal event says Kafka's
// words and the row's evidence is missing with them: never half done.
func rollingUpgrade(ctx context.Context, env Env) error {
	rel := env.Cluster.(cluster.Releases)
	from, to := rel.Release(), rel.UpgradeTarget()
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	logged, refused, err := roll(ctx, env, a, rel, swap{from: from, to: to})
	if err != nil || refused {
		return err
	}
	pctx, cancel := healContext(ctx, time.Minute)
	defer cancel()
	if err := proveReleases(pctx, env, a, to, logged); err != nil {
		return err
	}
	return finalizeFeatures(pctx, env, a, from, to)
}

// swap is one roll's direction: from one release to another, and the
// phase its events carry ("" for the upgrade).
type swap struct{ from, to, phase string }

// roll moves every broker in turn (upgradeOne): the version each logged,
// or refused when a broker would not run the release (the roll stops
// there, that broker back where it was).
func roll(ctx context.Context, env Env, a *admin, rel cluster.Releases, s swap) (map[cluster.NodeID]string, bool, error) {
	nodes := env.Cluster.Nodes()
	logged := map[cluster.NodeID]string{}
	for i, node := range nodes {
		v, refused, err := upgradeOne(ctx, env, a, rel, node, s, fmt.Sprintf("%d/%d", i+1, len(nodes)))
		if err != nil || refused {
			return logged, refused, err
		}
		logged[node] = v
	}
	return logged, false, nil
}

// upgradeOne swaps one broker's release and waits for the cluster to be
// whole again: the version the new broker logged, or refused when Kafka
// would not run the broker on it.
func upgradeOne(ctx context.Context, env Env, a *admin, rel cluster.Releases, node cluster.NodeID, s swap, turn string) (logged string, refused bool, err error) {
	from, to := s.from, s.to
	at := time.Now()
	point, load := turnLoad(ctx, env)
	n := strconv.Itoa(int(node))
	fired(env, point, at, phased(s, map[string]string{"node": n, "action": ActionSwap, AttrFrom: from, AttrTo: to, "turn": turn, "load": load}))
	rctx, cancel := healContext(ctx, restartLimit+time.Minute)
	logged, err = rel.SwapRelease(rctx, node, to)
	cancel()
	var no *cluster.RefusedError
	if errors.As(err, &no) {
		healed(env, time.Now(), phased(s, map[string]string{"node": n, "action": ActionRefused, AttrFrom: from, AttrTo: to,
			AttrRefusal: no.Error(), AttrRolledBack: strconv.FormatBool(no.RolledBack)}))
		if !no.RolledBack {
			return "", true, no
		}
		return "", true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("upgrade broker %d to %s: %w", node, to, err)
	}
	hctx, cancel := healContext(ctx, catchUpWait)
	left := a.waitFullyReplicated(hctx, catchUpWait)
	cancel()
	healed(env, time.Now(), phased(s, map[string]string{"node": n, "action": ActionSwapped, AttrTo: to, AttrLogged: logged,
		"took": time.Since(at).Round(time.Millisecond).String(), "under_replicated_after": strconv.Itoa(left)}))
	return logged, false, nil
}

// recordInfo puts one of the fault's own facts on the timeline.
func recordInfo(env Env, f string, attrs map[string]string) {
	env.record(history.Event{TS: time.Now().UnixNano(), Type: history.Info, F: f, Attrs: attrs})
}

// phased marks a downgrade's events.
func phased(s swap, attrs map[string]string) map[string]string {
	if s.phase != "" {
		attrs[AttrPhase] = s.phase
	}
	return attrs
}

// rollingDowngrade is rollingUpgrade, then the roll back to the old
// release, broker by broker, as an operator who regrets the upgrade would
// try it. Kafka may refuse (a release cannot read the metadata levels a
// newer one finalized): the refusing broker is put back on the new
// release, the roll back stops, and the cluster is whole on the new
// release. Or Kafka accepts, and every broker goes back. Either way never
// half done: the row's evidence says which.
func rollingDowngrade(ctx context.Context, env Env) error {
	if err := rollingUpgrade(ctx, env); err != nil {
		return err
	}
	rel := env.Cluster.(cluster.Releases)
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	_, _, err = roll(ctx, env, a, rel, swap{from: rel.UpgradeTarget(), to: rel.Release(), phase: PhaseDowngrade})
	return err
}
