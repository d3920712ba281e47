package conformance

import (
	"context"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/kip1289"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Kind is which implementation of KIP-1289 a broker is.
type Kind string

const (
	// Reference is the reference broker: kfake with KIP-1289
	// (refbroker/), TxnShareAcknowledge v0 to the share coordinator.
	Reference Kind = "refbroker"
	// Kafka is Apache Kafka with KIP-1289 built in (kafka-kip1289/),
	// TxnShareAcknowledge v1 to the partition leader.
	Kafka Kind = "kafka-kip1289"
)

// Pending-lock policies (a broker setting on both brokers).
const (
	PolicyExpire = "expire"
	PolicyHold   = "hold"
)

// Record locks the cases use: long enough that no lock runs out during a
// case's steps, or short enough that a case can wait one out.
const (
	LongLock  = 20 * time.Second
	ShortLock = 2 * time.Second
)

// Settings are what a case needs of its broker.
type Settings struct {
	// Policy is the broker's pending-lock policy (PolicyExpire, PolicyHold).
	Policy string
	// Lock is the share groups' record lock duration.
	Lock time.Duration
	// Brokers is how many brokers the case needs (0: one); a topic is
	// replicated to every one, so that a leader can fail over.
	Brokers int
}

// PolicyMatters says whether the case's outcome depends on the pending-lock
// policy: only where a lock can run out while an ack is pending (a short
// lock) or a failover restores pending entries (several brokers, written for
// one policy). With the long lock on one broker no lock runs out during the
// case, and a broker of either policy serves it.
func (s Settings) PolicyMatters() bool { return s.Lock != LongLock || s.Brokers > 1 }

// Broker is a started broker (one node) the cases run on.
type Broker struct {
	Kind      Kind
	Settings  Settings
	Bootstrap []string
	// LockPerGroup: the record lock is set per group
	// (share.record.lock.duration.ms, Kafka) rather than per broker (kfake
	// ignores the group config; the broker was started with Settings.Lock).
	LockPerGroup bool
	// ClientOpts are added to every client the cases build.
	ClientOpts []kgo.Opt
	// Keys are the API keys the broker serves KIP-1289 at (zero: the
	// placeholders, kip1289.DefaultAPIKeys).
	Keys kip1289.APIKeys
	// Restart stops the broker that leads topic/partition gracefully and
	// starts it again on the same data, returning once it answers: the
	// failover one broker can have (its share-partitions load again from the
	// share coordinator).
	Restart func(ctx context.Context, topic string, partition int32) error
	// KillLeader SIGKILLs the leader of topic/partition and returns once
	// another broker leads it, with what starts the killed one again (nil:
	// the broker cannot, as the reference broker, one process, cannot).
	// The roles in spare stay alive: a partition led by a broker that holds
	// one of them is moved to another broker first. The coordinator roles
	// in with die with it: they are moved onto the leader before the kill.
	KillLeader func(ctx context.Context, topic string, partition int32, spare, with []Role) (restart func(context.Context) error, err error)
	// MoveLeader hands the leadership of topic/partition to another broker
	// (a preferred-replica election, the old leader alive as a follower) and
	// returns once the metadata names the new one (nil: one broker).
	MoveLeader func(ctx context.Context, topic string, partition int32) error
	// Lacks says why a failover is missing (nil above), for the N/A.
	Lacks map[Need]string
}

// Missing is why b cannot give case c a failover it needs, or "".
func (b Broker) Missing(c Case) string {
	for _, n := range c.Needs {
		have := (n == NeedRestart && b.Restart != nil) || (n == NeedKill && b.KillLeader != nil) || (n == NeedMove && b.MoveLeader != nil)
		if have {
			continue
		}
		if why := b.Lacks[n]; why != "" {
			return "needs a " + string(n) + ": " + why
		}
		return "needs a " + string(n) + ", which " + string(b.Kind) + " cannot have"
	}
	return ""
}

// Role is a partition's leadership or a coordinator's key (cluster.Roles'
// terms), which a case needs kept off the broker it kills.
type Role struct {
	Kind cluster.CoordKind
	Key  string
}

// replication is the replication factor of a case's topics on b.
func (b Broker) replication() int16 { return int16(max(b.Settings.Brokers, 1)) }
