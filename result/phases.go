package result

// Phase names, in the order a cell goes through them (result.json "phases").
// A cell without a fault has no fault or heal phase; fault, heal and drain
// are cut out of the load by the fault's own firing and healing times.
const (
	PhaseTopicSetup = "topic-setup"
	PhaseSeeding    = "seeding"
	// PhaseAlign is a shared fault's wait for the other cells of its row and
	// their placement (suites' fault_share.go).
	PhaseAlign        = "align"
	PhaseWorkersStart = "workers-start"
	PhaseLoad         = "load"
	PhaseFault        = "fault"
	PhaseHeal         = "heal"
	PhaseDrain        = "drain"
	PhaseTeardown     = "teardown"
	PhaseReadBack     = "read-back"
	PhaseCheck        = "check"
)

// Phase is how long one phase of a cell took.
type Phase struct {
	Name      string  `json:"name"`
	DurationS float64 `json:"duration_s"`
}
