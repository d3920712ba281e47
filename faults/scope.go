package faults

import "github.com/sharechaos/sharechaos/workloads/ctp"

// Scope is what a fault can disturb, and so what may run beside it. Cells
// own their topics, share group and transactional ids; what they share is
// the brokers and the links between them.
type Scope int

const (
	// ScopeCluster faults act on brokers or links in a way aimed at one
	// cell's choreography (case 4 holds markers until that cell commits):
	// the cell runs alone.
	ScopeCluster Scope = iota
	// ScopeShared faults act on brokers and links alike for every cell on
	// the cluster: one injection serves every cell of the row (the modes of
	// one scenario) at once, and each of them meets the same fault at the
	// same moment. What such a fault aims at in one cell (the leader of an
	// input partition, a share coordinator) Align first places where it is
	// in the others.
	ScopeShared
	// ScopeCell faults act only on the cell's own transactional ids and
	// connections: the cell runs beside other cells.
	ScopeCell
)

// Shared is the mechanism run as one injection for several cells. Act still
// aims at Env.Topology; Env.Cells are the other cells it serves.
func (m Mechanism) Shared() bool { return m.Scope == ScopeShared }

// OtherCells are the topologies of the cells an injection serves besides
// Env.Topology's; Align may rename what is not yet in use (a share group
// before any member joined), so they are pointers.
type OtherCells []*ctp.Topology

// all is the primary topology followed by the others.
func (e Env) all() []ctp.Topology {
	out := []ctp.Topology{e.Topology}
	for _, t := range e.Cells {
		out = append(out, *t)
	}
	return out
}
