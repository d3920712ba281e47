// Package docker is the container backend: Apache Kafka brokers in
// containers (combined KRaft broker+controller, share groups on), every
// listener behind one toxiproxy container, started with testcontainers-go
// from images built offline by docker/build-images.sh. The *Cluster
// implements cluster.Cluster and its capabilities: Processes, Pauser,
// Network, Roles and BrokerLogs.
package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Cluster is a running docker cluster. Its methods are safe for concurrent
// use; after Close none may be called.
type Cluster struct {
	opts      Options
	eng       *engine
	clusterID string
	networks  []string // index node-1: each broker's internal network
	edge      string   // toxiproxy's network to the host

	proxy       testcontainers.Container
	proxyAPIURL string
	api         proxyAPI
	links       []proxyLink

	brokers []testcontainers.Container // index node-1
	// images are the brokers' images by node (index 0 unused; "": KafkaImage).
	images    map[int]string
	bootstrap []string // index node-1: 127.0.0.1:<client proxy>
	metrics   []string // index node-1: http://127.0.0.1:<metrics proxy>

	// security is the client listener's material (nil: PLAINTEXT).
	security *clientSecurity

	admin *kgo.Client
	adm   *kadm.Client

	startTime time.Duration
	closeOnce sync.Once
	closeErr  error
}

var (
	_ cluster.Cluster      = (*Cluster)(nil)
	_ cluster.Processes    = (*Cluster)(nil)
	_ cluster.Pauser       = (*Cluster)(nil)
	_ cluster.Links        = (*Cluster)(nil)
	_ cluster.Network      = (*Cluster)(nil)
	_ cluster.Roles        = (*Cluster)(nil)
	_ cluster.BrokerLogs   = (*Cluster)(nil)
	_ cluster.RequestTimer = (*Cluster)(nil)
)

// Name is "docker".
// Name is the backend's name in flags and reports.
const Name = "docker"

func (c *Cluster) Name() string { return Name }

// Nodes lists the brokers' node ids, 1..Brokers.
func (c *Cluster) Nodes() []cluster.NodeID {
	nodes := make([]cluster.NodeID, c.opts.Brokers)
	for i := range nodes {
		nodes[i] = cluster.NodeID(i + 1)
	}
	return nodes
}

// Bootstrap gives the client proxies' addresses on 127.0.0.1, in node order.
func (c *Cluster) Bootstrap() []string { return append([]string(nil), c.bootstrap...) }

// RunID is the value of the sharechaos.run label of the cluster's objects.
func (c *Cluster) RunID() string { return c.opts.RunID }

// ClusterID is the KRaft cluster id the brokers were formatted with.
func (c *Cluster) ClusterID() string { return c.clusterID }

// StartTime is how long Start took, from the engine's first answer to a
// share group that consumed.
func (c *Cluster) StartTime() time.Duration { return c.startTime }

// ProxyAPI is toxiproxy's HTTP API (http://127.0.0.1:port), for faults that
// add toxics of their own to the Links.
func (c *Cluster) ProxyAPI() string { return c.proxyAPIURL }

// Links lists every proxy: the client link of each broker and the
// inter-broker and controller link of each ordered pair of brokers.
func (c *Cluster) Links() []cluster.Link {
	out := make([]cluster.Link, len(c.links))
	for i, l := range c.links {
		out[i] = l.Link
	}
	return out
}

// Options are the options the cluster runs with, defaults filled in.
func (c *Cluster) Options() Options { return c.opts }

// Close removes every container and network of the run, also after a failed
// Start. With Options.LogDir set it first saves every container's log
// there. It works with an already cancelled ctx (an interrupted run must
// still clean up): it bounds itself to a minute instead.
func (c *Cluster) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		var errs []error
		if c.admin != nil {
			c.admin.Close()
		}
		if c.opts.LogDir != "" {
			if err := c.CopyLogs(ctx, c.opts.LogDir); err != nil {
				errs = append(errs, err)
			}
		}
		if err := c.eng.removeLabelled(ctx, c.runLabel(), c.opts.RunID); err != nil {
			errs = append(errs, fmt.Errorf("remove run %s: %w", c.opts.RunID, err))
		}
		errs = append(errs, c.eng.Close())
		c.security.remove()
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// CopyLogs writes each container's log (stdout and stderr) into dir:
// kafka-<node>.log and toxiproxy.log.
func (c *Cluster) CopyLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create log dir: %w", err)
	}
	var errs []error
	for i, ctr := range c.brokers {
		if ctr != nil {
			errs = append(errs, copyLog(ctx, ctr, filepath.Join(dir, fmt.Sprintf("kafka-%d.log", i+1))))
		}
	}
	if c.proxy != nil {
		errs = append(errs, copyLog(ctx, c.proxy, filepath.Join(dir, "toxiproxy.log")))
	}
	return errors.Join(errs...)
}

func copyLog(ctx context.Context, ctr testcontainers.Container, path string) error {
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return fmt.Errorf("read log for %s: %w", filepath.Base(path), err)
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create log file: %w", err)
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return fmt.Errorf("copy log to %s: %w", path, err)
	}
	return f.Close()
}

// broker returns the container of node, or an error naming a bad node.
func (c *Cluster) broker(node cluster.NodeID) (testcontainers.Container, error) {
	if node < 1 || int(node) > len(c.brokers) || c.brokers[node-1] == nil {
		return nil, fmt.Errorf("find broker %d: no such broker (nodes 1..%d)", node, c.opts.Brokers)
	}
	return c.brokers[node-1], nil
}
