package cell

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Plan is one cell to run.
type Plan struct {
	Index       int
	Scenario    scenarios.Scenario
	Mode        ctp.AckMode
	Realization string
	Repeat      int
	Seed        int64
	// Version is the Kafka release the cell runs on when the run names its
	// versions ("" otherwise): the cell's name and result carry it.
	Version string
	// Client is the client its workers run on (workerset.Clients; "": the
	// default): the cell's name and result carry it.
	Client string
	// Draw is the cell's index among the cells of its client and release:
	// with Seed, what its random choices are drawn from, so each client's
	// and release's cell of a scenario and mode draws the same crash points.
	// Index stays unique within the cluster (the cells' topics).
	Draw int
	// FallbackNote is set when transactional fell back to explicit.
	FallbackNote string
	// Consumer is the workers' share consumer (ctp.ConsumerKgo, ...).
	Consumer string
	// Share is the injection this cell shares with the other cells of its
	// row (share.go); nil when the cell injects its own fault, or none.
	Share *Share
}

// Name is the scenario's.
func (p Plan) Name() string { return p.Scenario.Name }

// Label names a cell as the progress lines do: its name without the
// backend, which every cell of a run shares.
func (p Plan) Label() string {
	name := p.Name() + "/" + string(p.Mode) + p.Stub("").NameParts().Dimensions()
	if p.Repeat > 1 {
		name += fmt.Sprintf("#%d", p.Repeat)
	}
	return name
}

// Stub is the result of a planned cell: the fields its name is made of.
func (p Plan) Stub(backend string) result.Cell {
	return result.Cell{Scenario: p.Name(), Mode: string(p.Mode), Backend: backend, Realization: p.Realization,
		KafkaVersion: p.Version, Client: p.Client, Repeat: p.Repeat, Seed: p.Seed, Anomalies: map[string]verdict.Found{}}
}
