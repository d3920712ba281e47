package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Name is the backend's name in reports.
const Name = "embedded"

// logTailBytes is how much of the broker log an error message quotes.
const logTailBytes = 4 << 10

// Cluster is a running embedded cluster: one broker child process running
// kfake, and an in-process toxiproxy with one proxy per broker. It implements
// cluster.Cluster, cluster.Network, cluster.Roles and cluster.BrokerLogs, but
// not cluster.Processes (see BrokerCrashNA). Its methods are safe for
// concurrent use.
type Cluster struct {
	opts    Options    // with defaults filled, DataDir and LogPath set
	args    brokerArgs // the child's command line, the same for every restart
	tempDir string     // removed by Close; "" when the caller chose DataDir
	proxies *proxies
	admin   *kgo.Client // for readiness checks and Roles, dials only the proxies
	startup time.Duration

	mu     sync.Mutex // serializes Close and RestartGraceful
	child  *child
	closed bool
}

var (
	_ cluster.Cluster    = (*Cluster)(nil)
	_ cluster.Network    = (*Cluster)(nil)
	_ cluster.Roles      = (*Cluster)(nil)
	_ cluster.BrokerLogs = (*Cluster)(nil)
)

// Start picks free loopback ports, starts one proxy per broker, starts the
// broker child and returns once the cluster answers through the proxies with
// all its brokers advertised at proxy addresses. ctx bounds only the start
// (together with Options.StartTimeout); the cluster runs until Close. On error
// nothing it started is left running, and the error quotes the broker log.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	began := time.Now()
	o := opts.withDefaults()
	c := &Cluster{opts: o}
	if err := c.setup(ctx); err != nil {
		c.teardown(ctx)
		return nil, err
	}
	c.startup = time.Since(began)
	return c, nil
}

func (c *Cluster) setup(ctx context.Context) error {
	if _, ok := logLevels[strings.ToLower(c.opts.LogLevel)]; !ok {
		return fmt.Errorf("start embedded cluster: unknown log level %q", c.opts.LogLevel)
	}
	if c.opts.DataDir == "" {
		dir, err := os.MkdirTemp("", "sharechaos-embedded-")
		if err != nil {
			return fmt.Errorf("create data dir: %w", err)
		}
		c.tempDir = dir
		c.opts.DataDir = filepath.Join(dir, "data")
	}
	if c.opts.LogPath == "" {
		c.opts.LogPath = filepath.Clean(c.opts.DataDir) + ".log"
	}
	if err := os.MkdirAll(filepath.Dir(c.opts.LogPath), 0o755); err != nil {
		return fmt.Errorf("create broker log dir: %w", err)
	}

	c.args = brokerArgs{
		dataDir:    c.opts.DataDir,
		syncWrites: c.opts.SyncWrites,
		configs:    c.opts.brokerConfigs(),
		logLevel:   strings.ToLower(c.opts.LogLevel),
		ref:        c.opts.Reference,
	}
	for attempt := 1; ; attempt++ {
		err := c.bindAndStart(ctx)
		if err == nil || attempt == portAttempts || !portTaken(err) || ctx.Err() != nil {
			return err
		}
		c.unbind()
	}
}

// portAttempts bounds how often a start picks new ports after one it picked
// was taken before it could bind it.
const portAttempts = 5

// bindAndStart picks the ports, starts the proxies on them and the broker
// child behind them. A port that was free when picked can be taken before it
// is bound: by another run's pick, or by another cluster whose broker or
// proxy comes back on its own port after a restart or partition (a port that
// was free only while that cluster's broker was down). Such a start fails
// with a bind error that portTaken recognizes, and Start tries new ports.
func (c *Cluster) bindAndStart(ctx context.Context) error {
	n := c.opts.Brokers
	ports, err := pickFreePorts(2 * n)
	if err != nil {
		return err
	}
	brokerAddrs, proxyAddrs := make([]string, n), make([]string, n)
	for i := range n {
		brokerAddrs[i] = loopback(ports[i])
		proxyAddrs[i] = loopback(ports[n+i])
	}
	if c.proxies, err = startProxies(proxyAddrs, brokerAddrs); err != nil {
		return err
	}
	c.args.ports, c.args.advertise = ports[:n], proxyAddrs
	if c.admin, err = kgo.NewClient(kgo.SeedBrokers(proxyAddrs...)); err != nil {
		return fmt.Errorf("create admin client: %w", err)
	}
	return c.startBroker(ctx)
}

// unbind undoes a bindAndStart that failed: the child is already gone
// (startBroker kills it on error).
func (c *Cluster) unbind() {
	if c.admin != nil {
		c.admin.Close()
		c.admin = nil
	}
	if c.proxies != nil {
		c.proxies.close()
		c.proxies = nil
	}
	c.child = nil
}

// portTaken tells whether a start failed because a port it picked was bound
// meanwhile: the proxies' own bind error, or the broker child's, which only
// reaches us as text quoted from its log.
func portTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), syscall.EADDRINUSE.Error())
}

// startBroker starts a child and waits until the cluster answers. On error the
// child is killed and the error quotes the broker log.
func (c *Cluster) startBroker(ctx context.Context) error {
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.StartTimeout,
		fmt.Errorf("broker not answering within %v", c.opts.StartTimeout))
	defer cancel()

	ch, err := startChild(c.args, c.opts.LogPath)
	if err != nil {
		return err
	}
	c.child = ch
	if err := c.waitAnswering(ctx); err != nil {
		return errors.Join(
			fmt.Errorf("start embedded cluster: %w\nbroker log %s, last lines:\n%s",
				err, c.opts.LogPath, logTail(c.opts.LogPath, logTailBytes)),
			ch.kill())
	}
	return nil
}

// waitAnswering waits for the child's ready line, then until a metadata
// request through the proxies names every broker at its proxy's address.
func (c *Cluster) waitAnswering(ctx context.Context) error {
	advertised, err := c.child.waitReady(ctx)
	if err != nil {
		return err
	}
	if want := strings.Join(c.proxies.addrs(), ","); advertised != want {
		return fmt.Errorf("broker advertises %s, want the proxies %s", advertised, want)
	}
	var lastErr error
	for {
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		lastErr = checkMetadata(attempt, c.admin, c.proxies.addrs())
		cancel()
		if lastErr == nil {
			return nil
		}
		select {
		case <-c.child.exited:
			return fmt.Errorf("broker child exited: %v", c.child.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("wait for metadata through the proxies: %w (last: %w)", context.Cause(ctx), lastErr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Name is "embedded".
func (c *Cluster) Name() string { return Name }

// Nodes lists the kfake brokers, node ids 0..Brokers-1.
func (c *Cluster) Nodes() []cluster.NodeID {
	nodes := make([]cluster.NodeID, c.opts.Brokers)
	for i := range nodes {
		nodes[i] = cluster.NodeID(i)
	}
	return nodes
}

// Bootstrap gives the proxies' addresses in node order.
func (c *Cluster) Bootstrap() []string { return c.proxies.addrs() }

// Close stops the broker gracefully (SIGTERM; SIGKILL after StopTimeout or
// when ctx ends), stops the proxies and removes the temporary data directory
// if Start made one. It leaves no process behind, also when it returns an
// error. Calling it again does nothing.
func (c *Cluster) Close(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.teardown(ctx)
}

func (c *Cluster) teardown(ctx context.Context) error {
	var errs []error
	if c.admin != nil {
		c.admin.Close()
	}
	if c.child != nil {
		if err := c.child.stop(ctx, c.opts.StopTimeout); err != nil {
			errs = append(errs, fmt.Errorf("close embedded cluster: %w", err))
		}
	}
	if c.proxies != nil {
		c.proxies.close()
	}
	if c.tempDir != "" {
		if err := os.RemoveAll(c.tempDir); err != nil {
			errs = append(errs, fmt.Errorf("remove data dir: %w", err))
		}
	}
	return errors.Join(errs...)
}

// RestartGraceful stops the broker child gracefully (kfake saves its state)
// and starts it again on the same ports and data directory, returning once it
// answers through the proxies. The proxies stay up meanwhile: clients see
// their connections close and redial. An error from the stop (it had to be
// killed) is returned even when the restart succeeded, since data may be lost.
func (c *Cluster) RestartGraceful(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("restart embedded cluster: %w", net.ErrClosed)
	}
	stopErr := c.child.stop(ctx, c.opts.StopTimeout)
	if stopErr != nil {
		stopErr = fmt.Errorf("restart embedded cluster: %w", stopErr)
	}
	return errors.Join(stopErr, c.startBroker(ctx))
}

// CopyLogs copies the broker log into dir as embedded-broker.log.
func (c *Cluster) CopyLogs(_ context.Context, dir string) error {
	src, err := os.Open(c.opts.LogPath)
	if err != nil {
		return fmt.Errorf("open broker log: %w", err)
	}
	defer src.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create log dir: %w", err)
	}
	dst, err := os.Create(filepath.Join(dir, "embedded-broker.log"))
	if err != nil {
		return fmt.Errorf("create log copy: %w", err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("copy broker log: %w", err)
	}
	return dst.Close()
}

// BrokerConfigs is the broker config set kfake runs with (defaults plus
// overrides), for the report.
func (c *Cluster) BrokerConfigs() map[string]string { return maps.Clone(c.args.configs) }

// LogPath is where the broker log is written.
func (c *Cluster) LogPath() string { return c.opts.LogPath }

// DataDir is kfake's data directory.
func (c *Cluster) DataDir() string { return c.opts.DataDir }

// StartupDuration is how long Start took, for the report.
func (c *Cluster) StartupDuration() time.Duration { return c.startup }

// Healthy returns nil while the broker child runs, and otherwise why it is
// gone, quoting its log: a run can tell a broker that died under it (a
// harness error) from a fault it injected.
func (c *Cluster) Healthy() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("embedded cluster: %w", net.ErrClosed)
	}
	select {
	case <-c.child.exited:
		return fmt.Errorf("embedded broker child exited: %v\nbroker log %s, last lines:\n%s",
			c.child.waitErr, c.opts.LogPath, logTail(c.opts.LogPath, logTailBytes))
	default:
		return nil
	}
}

// BrokerPID is the process id of the current broker child.
func (c *Cluster) BrokerPID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.child.pid()
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
