package docker

import (
	"context"
	"errors"
	"fmt"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// Each broker keeps its log directory on a named volume of its own, not in
// its container: a rolling upgrade replaces a broker's container by one of
// the next release's image (a container's image cannot change), and the new
// broker must find the old one's data, as a broker upgraded in place does.
// The volumes carry the run's labels, so Close and RemoveStale remove them
// with the containers.

// dataDir is where every broker keeps its data (log.dirs).
const dataDir = "/var/lib/kafka/data"

// dataVolumeName is broker n's data volume.
func dataVolumeName(runID string, n int) string {
	return fmt.Sprintf("sharechaos-%s-kafka-%d-data", runID, n)
}

// mountData mounts broker n's data volume (created with the run's labels
// on first use) on its data directory.
func (c *Cluster) mountData(hc *container.HostConfig, n int) {
	hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeVolume, Source: dataVolumeName(c.opts.RunID, n), Target: dataDir,
		VolumeOptions: &mount.VolumeOptions{Labels: c.labels("volume", n)}})
}

// volumeRef is what removal needs of a volume.
type volumeRef struct {
	Name   string
	Labels map[string]string
}

// volumesLabelled lists the volumes that carry label key (with value, when
// value is not empty).
func (e *engine) volumesLabelled(ctx context.Context, key, value string) ([]volumeRef, error) {
	filter := key
	if value != "" {
		filter = key + "=" + value
	}
	res, err := e.VolumeList(ctx, client.VolumeListOptions{Filters: make(client.Filters).Add("label", filter)})
	if err != nil {
		return nil, fmt.Errorf("list volumes: %w", err)
	}
	out := make([]volumeRef, 0, len(res.Items))
	for _, v := range res.Items {
		out = append(out, volumeRef{Name: v.Name, Labels: v.Labels})
	}
	return out, nil
}

// removeVolumes removes volumes; a volume still in use (its container not
// yet gone) is an error, as a leftover would be.
func (e *engine) removeVolumes(ctx context.Context, vs []volumeRef) error {
	var errs []error
	for _, v := range vs {
		if _, err := e.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("remove volume %s: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}

// removeLabelledVolumes removes the volumes whose label key is value, once
// their containers are gone.
func (e *engine) removeLabelledVolumes(ctx context.Context, key, value string) error {
	vs, err := e.volumesLabelled(ctx, key, value)
	if err != nil {
		return err
	}
	return e.removeVolumes(ctx, vs)
}

// staleVolumes are the volumes whose creating process is gone.
func (e *engine) staleVolumes(ctx context.Context) ([]volumeRef, error) {
	vs, err := e.volumesLabelled(ctx, LabelRun, "")
	if err != nil {
		return nil, err
	}
	stale := vs[:0]
	for _, v := range vs {
		if !ownerAlive(v.Labels) {
			stale = append(stale, v)
		}
	}
	return stale, nil
}
