package faults

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
)

// UpgradeFeatures are the feature levels a rolling upgrade finalizes, as
// `kafka-features.sh upgrade` does after the last broker moved: until then
// the new release runs at the old levels (its new share-group and
// transaction features off).
var UpgradeFeatures = []string{"metadata.version", "share.version", "transaction.version"}

// brokerFeatures is one broker's ApiVersions answer: the features it
// supports (name -> max level) and the cluster's finalized levels as it
// sees them.
type brokerFeatures struct {
	supported, finalized map[string]int16
	epoch                int64
}

// askFeatures sends ApiVersions to one broker.
func (a *admin) askFeatures(ctx context.Context, node cluster.NodeID) (brokerFeatures, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "sharechaos", "1"
	// A request to one broker is not retried by the client, and the
	// connection it had to a broker that restarted since fails once (EOF).
	var kr kmsg.Response
	var err error
	for try := 0; try < 5; try++ {
		if kr, err = a.cl.Broker(int(node)).Request(ctx, req); err == nil || !sleepCtx(ctx, time.Second) {
			break
		}
	}
	if err != nil {
		return brokerFeatures{}, fmt.Errorf("ask broker %d its api versions: %w", node, err)
	}
	resp := kr.(*kmsg.ApiVersionsResponse)
	bf := brokerFeatures{supported: map[string]int16{}, finalized: map[string]int16{}, epoch: resp.FinalizedFeaturesEpoch}
	for _, f := range resp.SupportedFeatures {
		bf.supported[f.Name] = f.MaxVersion
	}
	for _, f := range resp.FinalizedFeatures {
		bf.finalized[f.Name] = f.MaxVersionLevel
	}
	return bf, nil
}

// proveReleases records every broker's proof of its release: the version
// its log names (from the swap's heal event, kept by the docker backend)
// and its ApiVersions' supported feature levels, asked of it directly.
func proveReleases(ctx context.Context, env Env, a *admin, to string, logged map[cluster.NodeID]string) error {
	for _, node := range env.Cluster.Nodes() {
		bf, err := a.askFeatures(ctx, node)
		if err != nil {
			return err
		}
		recordInfo(env, history.FRelease, map[string]string{"node": strconv.Itoa(int(node)), AttrTo: to,
			AttrLogged: logged[node], "supported": levels(bf.supported, UpgradeFeatures)})
	}
	return nil
}

// finalizeFeatures raises each of UpgradeFeatures to the highest level
// every broker supports (UpdateFeatures, upgrade only), then reads the
// finalized levels back from every broker: the event says before, asked
// and after, and whether every broker sees the new levels.
func finalizeFeatures(ctx context.Context, env Env, a *admin, from, to string) error {
	before, common, err := a.clusterFeatures(ctx, env.Cluster.Nodes())
	if err != nil {
		return err
	}
	var ups []kadm.FeatureUpdate
	for _, f := range UpgradeFeatures {
		if lvl, ok := common[f]; ok && lvl > before[f] {
			ups = append(ups, kadm.FeatureUpdate{Feature: f, MaxVersionLevel: lvl, UpgradeType: 1})
		}
	}
	attrs := map[string]string{AttrFrom: from, AttrTo: to, "before": levels(before, UpgradeFeatures),
		"supported_by_all": levels(common, UpgradeFeatures), "load": loadNow(ctx, env)}
	if len(ups) > 0 {
		res, err := a.adm.UpdateFeatures(ctx, false, ups...)
		if err == nil {
			err = res.Error()
		}
		if err != nil {
			attrs["error"] = err.Error()
			recordInfo(env, history.FFeatures, attrs)
			return fmt.Errorf("finalize features: %w", err)
		}
	}
	after, seen, err := a.finalizedEverywhere(ctx, env.Cluster.Nodes(), common)
	if err != nil {
		return err
	}
	attrs["after"], attrs["every_broker_sees_them"] = levels(after, UpgradeFeatures), strconv.FormatBool(seen)
	recordInfo(env, history.FFeatures, attrs)
	return nil
}

// clusterFeatures are the finalized levels (as the first broker sees them)
// and, per feature, the highest level every broker supports.
func (a *admin) clusterFeatures(ctx context.Context, nodes []cluster.NodeID) (finalized, common map[string]int16, err error) {
	common = map[string]int16{}
	for i, node := range nodes {
		bf, err := a.askFeatures(ctx, node)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			finalized = bf.finalized
		}
		for f, lvl := range bf.supported {
			if c, ok := common[f]; (!ok && i == 0) || (ok && lvl < c) {
				common[f] = lvl
			}
		}
		for f := range common {
			if _, ok := bf.supported[f]; !ok {
				delete(common, f)
			}
		}
	}
	return finalized, common, nil
}

// finalizedEverywhere polls every broker until each sees want's levels
// finalized (metadata propagates), or ctx ends; it returns the first
// broker's view and whether all agreed.
func (a *admin) finalizedEverywhere(ctx context.Context, nodes []cluster.NodeID, want map[string]int16) (map[string]int16, bool, error) {
	for {
		var first map[string]int16
		all := true
		for i, node := range nodes {
			bf, err := a.askFeatures(ctx, node)
			if err != nil {
				return nil, false, err
			}
			if i == 0 {
				first = bf.finalized
			}
			for _, f := range UpgradeFeatures {
				if lvl, ok := want[f]; ok && bf.finalized[f] < lvl {
					all = false
				}
			}
		}
		if all || !sleepCtx(ctx, 500*time.Millisecond) {
			return first, all, nil
		}
	}
}

// levels prints the named features' levels: "metadata.version=27 share.version=1".
func levels(m map[string]int16, names []string) string {
	var parts []string
	for _, n := range names {
		if v, ok := m[n]; ok {
			parts = append(parts, n+"="+strconv.Itoa(int(v)))
		}
	}
	return strings.Join(parts, " ")
}

// loadNow says how far the load is, for an event that happens under it.
func loadNow(ctx context.Context, env Env) string {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	done, total := env.Progress(pctx)
	return fmt.Sprintf("%d of %d done", done, total)
}
