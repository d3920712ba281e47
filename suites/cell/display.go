package cell

// Phase is where a cell is, for the progress display.
type Phase string

// A cell's phases, in order: fault and heal only when its scenario has a
// cluster fault (a worker's fault fires inside the worker, during load).
const (
	PhaseSetup   Phase = "setup"
	PhaseSeeding Phase = "seeding"
	PhaseLoad    Phase = "load"
	PhaseFault   Phase = "fault"
	PhaseHeal    Phase = "heal"
	PhaseDrain   Phase = "drain"
	PhaseCheck   Phase = "check"
)

// Display is where running cells report how far they are (the run's
// terminal or log lines). Safe for concurrent use by the cells.
type Display interface {
	// Phase moves a cell to ph.
	Phase(p Plan, ph Phase)
	// Progress shows a cell's records done of total; text is the line a
	// plain display prints (at most every few seconds).
	Progress(p Plan, done, total int64, text func() string)
	// Note prints a line about a cell.
	Note(p Plan, line string)
}
