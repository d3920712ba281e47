package docker

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Releases names the Kafka releases of a cluster: From, the one its image
// carries (when known: --kafka-version, or our default image), and To, the
// one a rolling upgrade moves its brokers to ("" none).
type Releases struct {
	From string
	To   string
}

var _ cluster.Releases = (*Cluster)(nil)

// Release is the release the brokers started on ("" when the image is not
// one of ours by version).
func (c *Cluster) Release() string { return c.opts.Releases.From }

// UpgradeTarget is the release a rolling upgrade moves the brokers to.
func (c *Cluster) UpgradeTarget() string { return c.opts.Releases.To }

// brokerImage is the image broker n runs now: Options.KafkaImage until a
// swap put it on another release.
func (c *Cluster) brokerImage(n int) string {
	if img := c.images[n]; img != "" {
		return img
	}
	return c.opts.KafkaImage
}

// swapWait bounds a swapped broker's start: a broker that refuses its data
// exits within seconds, one that accepts it logs "Kafka Server started".
const swapWait = 3 * time.Minute

// SwapRelease replaces node's container by one of release's image, on the
// same data volume, network alias and server.properties: what an operator's
// in-place upgrade of one broker does (stop, new binaries, start). The old
// container's log is kept in LogDir as kafka-<node>-<release>.log.
func (c *Cluster) SwapRelease(ctx context.Context, node cluster.NodeID, release string) (string, error) {
	if err := CheckVersion(release); err != nil {
		return "", err
	}
	ctr, err := c.broker(node)
	if err != nil {
		return "", err
	}
	n := int(node)
	from := c.brokerRelease(n)
	if err := c.eng.stop(ctx, ctr.GetContainerID(), restartGrace); err != nil {
		return "", fmt.Errorf("swap broker %d: %w", node, err)
	}
	c.keepLog(ctx, ctr, n, from)
	if err := c.eng.removeContainer(ctx, ctr.GetContainerID()); err != nil {
		return "", fmt.Errorf("swap broker %d: %w", node, err)
	}
	prev := c.images[n]
	c.images[n] = VersionImage(release)
	logged, why, err := c.startSwapped(ctx, n)
	if err != nil {
		return "", fmt.Errorf("swap broker %d to %s: %w", node, release, err)
	}
	if why != "" {
		// Kafka refused: put the broker back on what it ran, on its data.
		c.keepLog(ctx, c.brokers[n-1], n, release+"-refused")
		_ = c.eng.removeContainer(ctx, c.brokers[n-1].GetContainerID())
		c.images[n] = prev
		_, backWhy, backErr := c.startSwapped(ctx, n)
		return "", &cluster.RefusedError{Node: node, From: from, To: release, Reason: why, RolledBack: backErr == nil && backWhy == ""}
	}
	if err := c.waitAnswers(ctx, node); err != nil {
		return logged, fmt.Errorf("swap broker %d to %s: %w", node, release, err)
	}
	c.opts.Logger.Info("broker swapped", "node", node, "from", from, "to", release, "logged", logged)
	return logged, nil
}

// brokerRelease is the release broker n runs ("" when not known).
func (c *Cluster) brokerRelease(n int) string {
	if img := c.images[n]; img != "" {
		return strings.TrimPrefix(img, "sharechaos/kafka:")
	}
	return c.opts.Releases.From
}

// startSwapped creates and starts broker n's container on its current image
// and waits for it to start (logged: the "Kafka version:" it logged) or to
// exit (why: the end of its log, Kafka's reason).
func (c *Cluster) startSwapped(ctx context.Context, n int) (logged, why string, err error) {
	req := c.brokerRequest(n)
	req.WaitingFor = nil
	ctr, err := testcontainers.GenericContainer(ctx, req)
	if ctr != nil {
		c.brokers[n-1] = ctr
	}
	if err != nil {
		return "", "", fmt.Errorf("start broker %d: %w", n, err)
	}
	wctx, cancel := context.WithTimeout(ctx, swapWait)
	defer cancel()
	for {
		log := containerLog(wctx, ctr)
		if strings.Contains(log, "Kafka Server started") {
			return loggedVersion(log), "", nil
		}
		st, err := c.eng.state(wctx, ctr.GetContainerID())
		if err == nil && (st == container.StateExited || st == container.StateDead) {
			return "", refusal(log), nil
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return "", "", fmt.Errorf("wait for broker %d to start on %s: %w", n, c.brokerImage(n), ctx.Err())
			}
			// Neither started nor gone: as good as refused (it is
			// put back), with what its log says.
			return "", fmt.Sprintf("it did not start within %s; its log: %s", swapWait, refusal(log)), nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

var loggedVersionPattern = regexp.MustCompile(`Kafka version: (\S+)`)

// loggedVersion is the last "Kafka version: X" a broker's log says (Kafka's
// AppInfoParser, at start).
func loggedVersion(log string) string {
	ms := loggedVersionPattern.FindAllStringSubmatch(log, -1)
	if len(ms) == 0 {
		return ""
	}
	return ms[len(ms)-1][1]
}

// refusal is the reason in a broker's log when it exited: its ERROR and
// exception lines, else its last lines.
func refusal(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	var errs []string
	for _, l := range lines {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "Exception") {
			errs = append(errs, strings.TrimSpace(l))
		}
	}
	if len(errs) == 0 {
		errs = lines[max(0, len(lines)-3):]
	}
	if len(errs) > 3 {
		errs = errs[:3]
	}
	return strings.Join(errs, " | ")
}

// containerLog is a container's whole log so far ("" when unreadable).
func containerLog(ctx context.Context, ctr testcontainers.Container) string {
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return string(b)
}

// keepLog saves a broker container's log before the container goes.
func (c *Cluster) keepLog(ctx context.Context, ctr testcontainers.Container, n int, release string) {
	if c.opts.LogDir == "" || ctr == nil {
		return
	}
	if err := os.MkdirAll(c.opts.LogDir, 0o755); err == nil {
		_ = copyLog(ctx, ctr, filepath.Join(c.opts.LogDir, fmt.Sprintf("kafka-%d-%s.log", n, release)))
	}
}

// removeContainer removes one container, never a named volume.
func (e *engine) removeContainer(ctx context.Context, id string) error {
	if _, err := e.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true}); err != nil && !isNotFound(err) {
		return fmt.Errorf("remove container: %w", err)
	}
	return nil
}
