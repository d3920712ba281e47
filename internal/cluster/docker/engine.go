package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// engine is the Docker engine's API for what testcontainers does not offer:
// signals, pause, start of a stopped container, removal by label.
type engine struct {
	*testcontainers.DockerClient
}

func newEngine(ctx context.Context) (*engine, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect docker engine: %w", err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("ping docker engine: %w", err)
	}
	return &engine{cli}, nil
}

func (e *engine) imageExists(ctx context.Context, image string) bool {
	_, err := e.ImageInspect(ctx, image)
	return err == nil
}

// state is a container's state: running, paused, exited, ...
func (e *engine) state(ctx context.Context, id string) (container.ContainerState, error) {
	res, err := e.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspect container: %w", err)
	}
	if res.Container.State == nil {
		return "", errors.New("inspect container: no state")
	}
	return res.Container.State.Status, nil
}

// kill sends SIGKILL and returns once the container is no longer running.
// A paused container is thawed first: in a frozen cgroup the signal would
// wait for the thaw anyway, and the engine refuses to kill it.
func (e *engine) kill(ctx context.Context, id string) error {
	st, err := e.state(ctx, id)
	if err != nil {
		return err
	}
	switch st {
	case container.StatePaused:
		if _, err := e.ContainerUnpause(ctx, id, client.ContainerUnpauseOptions{}); err != nil {
			return fmt.Errorf("unpause container before kill: %w", err)
		}
	case container.StateRunning:
	default:
		return nil // already down
	}
	if _, err := e.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return fmt.Errorf("kill container: %w", err)
	}
	return e.waitState(ctx, id, func(s container.ContainerState) bool {
		return s != container.StateRunning && s != container.StatePaused
	})
}

// stop stops a container gracefully (SIGTERM, then SIGKILL after grace).
func (e *engine) stop(ctx context.Context, id string, grace time.Duration) error {
	secs := int(grace / time.Second)
	if _, err := e.ContainerStop(ctx, id, client.ContainerStopOptions{Timeout: &secs}); err != nil {
		return fmt.Errorf("stop container: %w", err)
	}
	return nil
}

func (e *engine) start(ctx context.Context, id string) error {
	if _, err := e.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("start container: %w", err)
	}
	return nil
}

func (e *engine) pause(ctx context.Context, id string) error {
	if _, err := e.ContainerPause(ctx, id, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("pause container: %w", err)
	}
	return nil
}

func (e *engine) unpause(ctx context.Context, id string) error {
	if _, err := e.ContainerUnpause(ctx, id, client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("unpause container: %w", err)
	}
	return nil
}

func (e *engine) waitState(ctx context.Context, id string, done func(container.ContainerState) bool) error {
	for {
		st, err := e.state(ctx, id)
		if err != nil {
			return err
		}
		if done(st) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for container state (now %s): %w", st, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// createNetwork creates a bridge network carrying labels. An internal one
// has no gateway: its containers reach nothing outside it.
func (e *engine) createNetwork(ctx context.Context, name string, labels map[string]string, internal bool) error {
	_, err := e.NetworkCreate(ctx, name, client.NetworkCreateOptions{Driver: "bridge", Labels: labels, Internal: internal})
	if err != nil {
		return fmt.Errorf("create network %s: %w", name, err)
	}
	return nil
}

// labelled lists the containers and networks that carry label key (with
// value, when value is not empty).
func (e *engine) labelled(ctx context.Context, key, value string) ([]container.Summary, []networkRef, error) {
	filter := key
	if value != "" {
		filter = key + "=" + value
	}
	cs, err := e.ContainerList(ctx, client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", filter),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list containers: %w", err)
	}
	ns, err := e.NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("label", filter)})
	if err != nil {
		return nil, nil, fmt.Errorf("list networks: %w", err)
	}
	nets := make([]networkRef, 0, len(ns.Items))
	for _, n := range ns.Items {
		nets = append(nets, networkRef{ID: n.ID, Name: n.Name, Labels: n.Labels})
	}
	return cs.Items, nets, nil
}

// networkRef is what removal needs of a network.
type networkRef struct {
	ID, Name string
	Labels   map[string]string
}

// remove force-removes containers (with their anonymous volumes), then the
// networks, which cannot go while a container is attached. It goes on past
// errors so that one stuck object does not keep the rest alive.
func (e *engine) remove(ctx context.Context, cs []container.Summary, nets []networkRef) error {
	var errs []error
	for _, c := range cs {
		_, err := e.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("remove container %s: %w", containerName(c), err))
		}
	}
	for _, n := range nets {
		if _, err := e.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

func containerName(c container.Summary) string {
	if len(c.Names) > 0 {
		return c.Names[0][1:] // the engine prefixes names with "/"
	}
	return c.ID[:12]
}

func isNotFound(err error) bool { return cerrdefs.IsNotFound(err) }
