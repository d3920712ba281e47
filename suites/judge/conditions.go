package judge

import (
	"regexp"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
)

// ConfigPendingLock is result.json's config key for the reference broker's
// pending-lock policy, set only when the run's broker is the reference broker.
const ConfigPendingLock = "kip1289_pending_lock"

// brokerPolicy finds the policy in the broker note of runs stored before
// ConfigPendingLock existed ("refbroker (kfake with KIP-1289, pending lock
// hold) ...", harness.EmbeddedBroker.Describe).
var brokerPolicy = regexp.MustCompile(`pending lock (expire|hold)\b`)

// runConditions reads the conditions back from a stored run's config, for
// a re-check: the same ones its live judgement had, or zero fields where
// the config does not say.
func runConditions(config map[string]string) scenarios.Conditions {
	var c scenarios.Conditions
	c.PendingLock = config[ConfigPendingLock]
	if c.PendingLock == "" {
		if m := brokerPolicy.FindStringSubmatch(config["broker"]); m != nil {
			c.PendingLock = m[1]
		}
	}
	if d, err := time.ParseDuration(config["record_lock"]); err == nil {
		c.Lock = d
	}
	return c
}

// runShape reads the run's shape back from a stored run (its config, and
// the cluster it described: the brokers it really had, which an external
// cluster's --brokers does not say), for a re-check's N/A: zero where it
// does not say.
func runShape(res result.Result) scenarios.Shape {
	config := res.Config
	n := func(key string) int {
		v, err := strconv.Atoi(config[key])
		if err != nil {
			return 0
		}
		return v
	}
	shape := scenarios.Shape{Workers: n("workers"), Partitions: int32(n("partitions")), Batch: int32(n("max_records_per_poll")), Brokers: n("brokers")}
	if res.Cluster != nil && res.Cluster.Brokers > 0 {
		shape.Brokers = res.Cluster.Brokers
	}
	return shape
}
