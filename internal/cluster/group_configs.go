package cluster

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SetGroupConfigs sets group-level configs of group (IncrementalAlterConfigs
// on the GROUP resource): the one place that speaks that request, for the
// suite's share groups (workloads/ctp) and a backend's readiness probe
// (docker). A refusal comes back as the broker's error (errors.Is with kerr
// errors), with its message.
func SetGroupConfigs(ctx context.Context, cl *kgo.Client, group string, configs map[string]string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	for name, value := range configs {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = name
		c.Op = kmsg.IncrementalAlterConfigOpSet
		c.Value = kmsg.StringPtr(value)
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("set group configs of %s: %w", group, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return fmt.Errorf("set group configs of %s: %w%s", group, err, msg)
		}
	}
	return nil
}
