package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Labels on every container and network a cluster creates. The run label
// finds a run's objects for Close; the pid labels let RemoveStale tell the
// leftovers of a dead process from a cluster another live process is using.
const (
	LabelRun      = "sharechaos.run"
	LabelPID      = "sharechaos.pid"
	LabelPIDStart = "sharechaos.pidstart" // the process's start time, against pid reuse
	LabelRole     = "sharechaos.role"     // kafka | toxiproxy | network
	LabelNode     = "sharechaos.node"     // a broker's node id
)

// runLabels are the labels of one object of this run.
func runLabels(runID, role string, node int) map[string]string {
	pid := os.Getpid()
	labels := map[string]string{
		LabelRun:      runID,
		LabelPID:      strconv.Itoa(pid),
		LabelPIDStart: processStart(pid),
		LabelRole:     role,
	}
	if node > 0 {
		labels[LabelNode] = strconv.Itoa(node)
	}
	return labels
}

// RemoveStale removes every sharechaos container and network whose creating
// process is gone (killed, crashed, or interrupted before its Close), of any
// run. Objects of live processes are left alone, so concurrent runs on one
// engine are safe. It returns the names it removed. Start calls it first.
func RemoveStale(ctx context.Context) ([]string, error) {
	setTestcontainersEnv()
	eng, err := newEngine(ctx)
	if err != nil {
		return nil, fmt.Errorf("remove stale objects: %w", err)
	}
	defer eng.Close()
	return eng.removeStale(ctx)
}

func (e *engine) removeStale(ctx context.Context) ([]string, error) {
	cs, nets, err := e.labelled(ctx, LabelRun, "")
	if err != nil {
		return nil, fmt.Errorf("remove stale objects: %w", err)
	}
	var removed []string
	staleCs := cs[:0]
	for _, c := range cs {
		if !ownerAlive(c.Labels) {
			staleCs = append(staleCs, c)
			removed = append(removed, "container "+containerName(c))
		}
	}
	staleNets := nets[:0]
	for _, n := range nets {
		if !ownerAlive(n.Labels) {
			staleNets = append(staleNets, n)
			removed = append(removed, "network "+n.Name)
		}
	}
	if err := e.remove(ctx, staleCs, staleNets); err != nil {
		return removed, fmt.Errorf("remove stale objects: %w", err)
	}
	// Volumes last: a volume cannot go while its container exists.
	vs, err := e.staleVolumes(ctx)
	if err != nil {
		return removed, fmt.Errorf("remove stale objects: %w", err)
	}
	for _, v := range vs {
		removed = append(removed, "volume "+v.Name)
	}
	if err := e.removeVolumes(ctx, vs); err != nil {
		return removed, fmt.Errorf("remove stale objects: %w", err)
	}
	return removed, nil
}

// ownerAlive says whether the process named by an object's labels still
// runs. No pid label means no owner: only code of an older shape could have
// made the object, and nobody will close it.
func ownerAlive(labels map[string]string) bool {
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil || pid <= 0 {
		return false
	}
	start := processStart(pid)
	if start == "" {
		return false
	}
	// A different start time means the pid was reused by another process.
	want := labels[LabelPIDStart]
	return want == "" || want == start
}

// processStart is the start time of process pid in clock ticks since boot
// (field 22 of /proc/pid/stat), or "" when no such process exists.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) may contain spaces and parentheses: count
	// fields from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	const startTimeIndex = 22 - 3 // fields after ')' begin with field 3
	if len(fields) <= startTimeIndex {
		return ""
	}
	return fields[startTimeIndex]
}

// removeRun removes every container and network of one run.
func (e *engine) removeRun(ctx context.Context, runID string) error {
	return e.removeLabelled(ctx, LabelRun, runID)
}

// removeLabelled removes every container, network and volume whose label
// key is value.
func (e *engine) removeLabelled(ctx context.Context, key, value string) error {
	if err := e.removeLabelledObjects(ctx, key, value); err != nil {
		return err
	}
	return e.removeLabelledVolumes(ctx, key, value)
}

// removeLabelledObjects removes every container and network whose label key
// is value.
func (e *engine) removeLabelledObjects(ctx context.Context, key, value string) error {
	// Containers can still be appearing when Close runs after a failed or
	// cancelled Start; a second pass catches what the first one raced with.
	var errs []error
	for range 2 {
		cs, nets, err := e.labelled(ctx, key, value)
		if err != nil {
			return err
		}
		if len(cs) == 0 && len(nets) == 0 {
			return nil
		}
		errs = append(errs[:0], e.remove(ctx, cs, nets))
		time.Sleep(100 * time.Millisecond)
	}
	return errors.Join(errs...)
}
