package harness

import (
	"context"
	"github.com/sharechaos/sharechaos/result"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// DescribeCluster is the cluster section of every report: the version the
// brokers' ApiVersions answer matches, their ids, their finalized features
// and whether they advertise KIP-1289's keys. nil when the cluster does not
// answer within a few seconds (the report then says unknown).
func DescribeCluster(ctx context.Context, c cluster.Cluster, common Common) *result.ClusterInfo {
	cl, err := cluster.NewClient(c, kgo.ClientID("sharechaos-describe"))
	if err != nil {
		return nil
	}
	defer cl.Close()
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "sharechaos", "1"
	resp, err := req.RequestWith(dctx, cl)
	if err != nil || resp.ErrorCode != 0 {
		return nil
	}
	info := &result.ClusterInfo{
		KafkaVersion:  kversion.FromApiVersionsResponse(resp).VersionGuess(),
		VersionSource: "ApiVersions: the newest release whose API ranges match",
		Bootstrap:     c.Bootstrap(),
		Features:      map[string]int16{},
	}
	keys := common.KIP1289Keys
	if keys == (kip1289.APIKeys{}) {
		keys = kip1289.DefaultAPIKeys()
	}
	info.KIP1289Keys = []int16{keys.AddShareAcksToTxn, keys.TxnShareAcknowledge}
	for _, f := range resp.FinalizedFeatures {
		info.Features[f.Name] = f.MaxVersionLevel
	}
	var have int
	for _, k := range resp.ApiKeys {
		if slices.Contains(info.KIP1289Keys, k.ApiKey) {
			have++
		}
	}
	info.KIP1289Advertised = have == len(info.KIP1289Keys)
	for _, n := range c.Nodes() {
		info.BrokerIDs = append(info.BrokerIDs, int32(n))
	}
	info.Brokers = len(info.BrokerIDs)
	info.GroupDefaults = groupDefaults(dctx, cl)
	if cfg := cluster.ClientConfigOf(c); !cfg.IsZero() {
		info.ClientSecurity = cfg.Describe()
	}
	switch dc := c.(type) {
	case *docker.Cluster:
		info.Image = dc.Options().KafkaImage
		info.JVM = "JIT " + dc.Options().BrokerJIT + " (--broker-jit), heap " + dc.Options().BrokerHeap
		info.BrokerConfigs = dc.Options().BrokerConfigs
	default:
		if c.Name() == embedded.Name {
			info.Image = "kfake (franz-go's fake cluster, in a child process)"
			info.VersionSource += "; kfake implements its own mix of API versions, so no release matches exactly"
		}
	}
	return info
}
