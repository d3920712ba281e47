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
	nodes := env.Cluster.Nodes()
	logged := map[cluster.NodeID]string{}
	for i, node := range nodes {
		v, refused, err := upgradeOne(ctx, env, a, rel, node, fmt.Sprintf("%d/%d", i+1, len(nodes)))
		if err != nil || refused {
			return err
		}
		logged[node] = v
	}
	pctx, cancel := healContext(ctx, time.Minute)
	defer cancel()
	if err := proveReleases(pctx, env, a, to, logged); err != nil {
		return err
	}
	return finalizeFeatures(pctx, env, a, from, to)
}

// upgradeOne swaps one broker's release and waits for the cluster to be
// whole again: the version the new broker logged, or refused when Kafka
// would not run the broker on it.
func upgradeOne(ctx context.Context, env Env, a *admin, rel cluster.Releases, node cluster.NodeID, turn string) (logged string, refused bool, err error) {
	from, to := rel.Release(), rel.UpgradeTarget()
	at := time.Now()
	point, load := "under-load", "running"
	if ctx.Err() != nil {
		point, load = "after-drain", "drained"
	} else {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		done, total := env.Progress(pctx)
		cancel()
		load = fmt.Sprintf("%d of %d done", done, total)
	}
	n := strconv.Itoa(int(node))
	fired(env, point, at, map[string]string{"node": n, "action": ActionSwap, AttrFrom: from, AttrTo: to, "turn": turn, "load": load})
	rctx, cancel := healContext(ctx, restartLimit+time.Minute)
	logged, err = rel.SwapRelease(rctx, node, to)
	cancel()
	var no *cluster.RefusedError
	if errors.As(err, &no) {
		healed(env, time.Now(), map[string]string{"node": n, "action": ActionRefused, AttrFrom: from, AttrTo: to,
			AttrRefusal: no.Error(), AttrRolledBack: strconv.FormatBool(no.RolledBack)})
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
	healed(env, time.Now(), map[string]string{"node": n, "action": ActionSwapped, AttrTo: to, AttrLogged: logged,
		"took": time.Since(at).Round(time.Millisecond).String(), "under_replicated_after": strconv.Itoa(left)})
	return logged, false, nil
}

// recordInfo puts one of the fault's own facts on the timeline.
func recordInfo(env Env, f string, attrs map[string]string) {
	env.record(history.Event{TS: time.Now().UnixNano(), Type: history.Info, F: f, Attrs: attrs})
}
