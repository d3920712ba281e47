package suites

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/docker"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
)

// backendChoice is the backend a run uses and why (auto's reasoning goes in
// the report).
type backendChoice struct {
	name string
	why  string
}

func chooseBackend(ctx context.Context, o *Options) backendChoice {
	switch o.Backend {
	case "embedded":
		return backendChoice{"embedded", "asked for with --backend embedded"}
	case "docker":
		return backendChoice{"docker", "asked for with --backend docker"}
	}
	if ok, why := docker.Available(ctx); ok {
		return backendChoice{"docker", "auto: " + why}
	} else {
		return backendChoice{"embedded", "auto: no usable Docker backend (" + why + "); using the embedded kfake cluster"}
	}
}

func startBackend(ctx context.Context, o *Options, b backendChoice, runID, dir string) (cluster.Cluster, error) {
	if b.name == "docker" {
		c, err := docker.Start(ctx, docker.Options{
			Brokers: o.Brokers,
			RunID:   "sc-" + runID,
			LogDir:  filepath.Join(dir, "broker-logs"),
			Logger:  o.Log,
		})
		if err != nil {
			if c != nil {
				_ = c.Close(context.WithoutCancel(ctx))
			}
			return nil, fmt.Errorf("start docker cluster: %w", err)
		}
		return c, nil
	}
	c, err := embedded.Start(ctx, embedded.Options{
		Brokers: o.Brokers,
		// DataDir empty: a temporary directory that Close removes; the run
		// directory keeps only the broker's log.
		LogPath:    filepath.Join(dir, "embedded-broker.log"),
		RecordLock: o.Lock,
		BrokerConfigs: map[string]string{
			// A SIGKILLed member keeps its partitions until its session times
			// out (45s by default): nobody else is assigned them meanwhile, so
			// every crash would stall the cell for 45s.
			"group.share.session.timeout.ms":    strconv.Itoa(int(shareSessionTimeout.Milliseconds())),
			"group.share.heartbeat.interval.ms": strconv.Itoa(int(shareHeartbeat.Milliseconds())),
		},
	})
	if err != nil {
		if c != nil {
			_ = c.Close(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("start embedded cluster: %w", err)
	}
	return c, nil
}

// Share-group membership timing for chaos runs: a crashed member's partitions
// go to the others within shareSessionTimeout.
const (
	shareSessionTimeout = 6 * time.Second
	shareHeartbeat      = time.Second
)
