package docker

import (
	"context"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// roles is the admin-API implementation of cluster.Roles that the docker
// and external backends share.
func (c *Cluster) roles() kafkarole.Roles {
	return kafkarole.Roles{Adm: c.adm, Log: c.opts.Logger, Known: func(n cluster.NodeID) error {
		_, err := c.broker(n)
		return err
	}}
}

// Coordinator: see kafkarole.Roles.Coordinator.
func (c *Cluster) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	return c.roles().Coordinator(ctx, kind, key)
}

// MoveLeader: see kafkarole.Roles.MoveLeader.
func (c *Cluster) MoveLeader(ctx context.Context, topic string, partition int32, node cluster.NodeID) error {
	return c.roles().MoveLeader(ctx, topic, partition, node)
}
