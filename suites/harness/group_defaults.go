package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// groupDefaultsProbe is a group name no cell uses: DescribeConfigs of a
// group that was never configured answers every group config with its
// default, which is what a release's share groups start with.
const groupDefaultsProbe = "sharechaos-group-config-defaults"

// groupDefaults are the share-group configs a group gets on this cluster
// without setting any (name -> value), as the brokers answer
// DescribeConfigs on the GROUP resource: how a release differs
// (share.renew.acknowledge.enable since 4.3, errors.deadletterqueue.* since
// 4.4). nil when the cluster does not answer.
func groupDefaults(ctx context.Context, cl *kgo.Client) map[string]string {
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeGroupConfig, groupDefaultsProbe
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || len(resp.Resources) != 1 || resp.Resources[0].ErrorCode != 0 {
		return nil
	}
	out := map[string]string{}
	for _, c := range resp.Resources[0].Configs {
		if !strings.HasPrefix(c.Name, "share.") && !strings.HasPrefix(c.Name, "errors.") {
			continue
		}
		v := "null"
		if c.Value != nil {
			v = *c.Value
		}
		out[c.Name] = fmt.Sprintf("%s (%s)", v, c.Source)
	}
	return out
}
