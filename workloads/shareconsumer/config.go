package shareconsumer

import (
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Config configures a Consumer. Bootstrap, Group and Topics are required.
type Config struct {
	Bootstrap []string
	Group     string
	Topics    []string

	// MaxRecords is ShareFetch's MaxRecords (and BatchSize): the most
	// records one Poll acquires; default 10.
	MaxRecords int32
	// BatchOptimized asks for KIP-1206's batch-optimized acquisition, where
	// the broker may exceed MaxRecords to keep whole batches; by default
	// the consumer asks for the record limit, so a Poll never holds locks on
	// more records than the caller means to process.
	BatchOptimized bool
	// Spread makes each Poll first ask every leader of an assigned
	// partition at once, without waiting, for a share of MaxRecords, as
	// Kafka's Java share consumer fetches from every leader at once; only
	// when none had records does it wait on one. A leader of several
	// assigned partitions is asked once per partition, in turn (the broker
	// starts each fetch of a session at another partition). A poll then
	// holds records of several share-partitions whenever several have some.
	Spread bool
	// MaxWait is ShareFetch's MaxWaitMillis; default 100ms.
	MaxWait time.Duration
	// MaxBytes and PartitionMaxBytes bound a fetch; defaults 8 MiB and 1 MiB.
	MaxBytes          int32
	PartitionMaxBytes int32

	// MemberID is the member id to join with; default a random UUID (the
	// client generates it since Kafka 4.1). A replacement process must not
	// reuse a live member's id.
	MemberID string
	// RackID is sent on join; empty: none.
	RackID string

	// ConnIdleTimeout is kgo's ConnIdleTimeout on the client New builds; it
	// must outlast the longest time a caller holds records between two
	// requests, or the reaped connection ends the share session. Default
	// 10 minutes.
	ConnIdleTimeout time.Duration
	// ClientOpts are appended to the options of the client New builds.
	ClientOpts []kgo.Opt
	// RequestTimeout bounds each request New, Poll, Acknowledge and the
	// heartbeats issue when the caller's context has no earlier deadline;
	// default 10s.
	RequestTimeout time.Duration
	// JoinTimeout bounds New's wait for the first heartbeat that makes this
	// member part of the group; default 30s.
	JoinTimeout time.Duration
}

// Defaults of Config.
const (
	DefaultMaxRecords        = 10
	DefaultMaxWait           = 100 * time.Millisecond
	DefaultMaxBytes          = 8 << 20
	DefaultPartitionMaxBytes = 1 << 20
	DefaultConnIdleTimeout   = 10 * time.Minute
	DefaultRequestTimeout    = 10 * time.Second
	DefaultJoinTimeout       = 30 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	if len(c.Bootstrap) == 0 || c.Group == "" || len(c.Topics) == 0 {
		return c, errors.New("check config: Bootstrap, Group and Topics are required")
	}
	if c.MaxRecords <= 0 {
		c.MaxRecords = DefaultMaxRecords
	}
	if c.MaxWait <= 0 {
		c.MaxWait = DefaultMaxWait
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.PartitionMaxBytes <= 0 {
		c.PartitionMaxBytes = DefaultPartitionMaxBytes
	}
	if c.MemberID == "" {
		c.MemberID = newMemberID()
	}
	if len(c.MemberID) > 36 {
		return c, errors.New("check config: MemberID longer than 36 characters")
	}
	if c.ConnIdleTimeout <= 0 {
		c.ConnIdleTimeout = DefaultConnIdleTimeout
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.JoinTimeout <= 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	return c, nil
}
