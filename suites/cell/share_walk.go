package cell

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Row is the scenario name of the row f serves.
func (f *Share) Row() string { return f.fault.scenario.Name }

// WalkShare walks a member that runs nothing through f's steps as a cell
// does (join, workers running, drained and healed, exit), its timeline in
// dir: the scheduler's tests run rows of such members.
func WalkShare(ctx context.Context, f *Share, index int, prefix, dir string) error {
	m, err := shareMember(index, prefix, dir)
	if err != nil {
		return err
	}
	defer m.timeline.Close()
	defer f.exit(ctx, m)
	if err := f.join(ctx, m); err != nil {
		return err
	}
	f.running(m)
	_, err = f.drainedAndWait(m)
	return err
}

// LeaveShare says a member that never joined (an N/A cell) stopped.
func LeaveShare(f *Share, index int) {
	f.exit(context.Background(), &run{plan: Plan{Index: index}})
}

// shareMember is a run with what a Share touches.
func shareMember(index int, prefix, dir string) (*run, error) {
	rec, err := history.Create(filepath.Join(dir, "orchestrator.jsonl"), history.Orchestrator)
	if err != nil {
		return nil, err
	}
	return &run{plan: Plan{Index: index}, topo: ctp.NewTopology(prefix, 2, 1, 1), timeline: rec, seeding: upFront{},
		env: Env{Display: discard{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}, nil
}

// discard is a Display that shows nothing.
type discard struct{}

func (discard) Phase(Plan, Phase)                          {}
func (discard) Progress(Plan, int64, int64, func() string) {}
func (discard) Note(Plan, string)                          {}
