package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Broker-wide settings a run depends on but cannot set per group: a run
// leaves a cluster as it found it, so it sets only group configs (ctp.Setup:
// share.record.lock.duration.ms, share.delivery.count.limit,
// share.auto.offset.reset, share.isolation.level) and checks these instead.
const (
	cfgMinLock     = "group.share.min.record.lock.duration.ms"
	cfgMaxLock     = "group.share.max.record.lock.duration.ms"
	cfgMaxTxn      = "transaction.max.timeout.ms"
	cfgSession     = "group.share.session.timeout.ms"
	cfgMaxDelivery = "group.share.max.delivery.count.limit"
)

// BrokerSettings is what CheckBrokerSettings found, for the report.
type BrokerSettings map[string]string

// CheckBrokerSettings reads the broker-wide settings the cells rely on
// (DescribeConfigs on one broker) and fails, naming the setting, its value
// and what the run needs, where they would make the cells meaningless: a
// group lock the brokers clamp (lock-expiry scenarios then test another
// lock), a transaction timeout the brokers refuse, a delivery limit below
// the one the oracle assumes. A setting the broker does not report (kfake)
// is not checked. The share session timeout is reported: it bounds how long
// a crashed worker's partitions wait, not what is correct.
func CheckBrokerSettings(ctx context.Context, c cluster.Cluster, lock, txnTimeout time.Duration) (BrokerSettings, error) {
	nodes := c.Nodes()
	if len(nodes) == 0 {
		return nil, nil
	}
	cl, err := cluster.NewClient(c, kgo.ClientID("sharechaos-preflight"))
	if err != nil {
		return nil, fmt.Errorf("check broker settings: %w", err)
	}
	defer cl.Close()
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	rs, err := kadm.NewClient(cl).DescribeBrokerConfigs(dctx, int32(nodes[0]))
	if err != nil {
		// kfake and older brokers may not answer for every key: nothing to
		// check is not a failure.
		return nil, nil
	}
	got := BrokerSettings{}
	for _, r := range rs {
		for _, cfg := range r.Configs {
			if cfg.Value != nil {
				got[cfg.Key] = *cfg.Value
			}
		}
	}
	ms := func(key string) (time.Duration, bool) {
		v, ok := got[key]
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		return time.Duration(n) * time.Millisecond, err == nil
	}
	var problems []string
	if min, ok := ms(cfgMinLock); ok && min > lock {
		problems = append(problems, fmt.Sprintf("%s=%s on broker %d is above --lock %s: the group's lock would be refused (this setting is broker-wide; lower it or raise --lock)", cfgMinLock, got[cfgMinLock], nodes[0], lock))
	}
	if max, ok := ms(cfgMaxLock); ok && max < lock {
		problems = append(problems, fmt.Sprintf("%s=%s on broker %d is below --lock %s (broker-wide; raise it or lower --lock)", cfgMaxLock, got[cfgMaxLock], nodes[0], lock))
	}
	if max, ok := ms(cfgMaxTxn); ok && max < txnTimeout {
		problems = append(problems, fmt.Sprintf("%s=%s on broker %d is below --txn-timeout %s: every producer would be refused (broker-wide)", cfgMaxTxn, got[cfgMaxTxn], nodes[0], txnTimeout))
	}
	if v, ok := got[cfgMaxDelivery]; ok {
		if n, err := strconv.Atoi(v); err == nil && n < DeliveryLimit {
			problems = append(problems, fmt.Sprintf("%s=%s on broker %d is below the delivery limit %d the oracle assumes: records of one-shot faults could be archived (broker-wide)", cfgMaxDelivery, v, nodes[0], DeliveryLimit))
		}
	}
	keep := BrokerSettings{}
	for _, k := range []string{cfgMinLock, cfgMaxLock, cfgMaxTxn, cfgSession, cfgMaxDelivery} {
		if v, ok := got[k]; ok {
			keep[k] = v
		}
	}
	if len(problems) > 0 {
		return keep, fmt.Errorf("check broker settings: %s", strings.Join(problems, "; "))
	}
	return keep, nil
}
