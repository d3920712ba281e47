package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

// onNewRelease: every broker the roll took ran the target release after it,
// by its own word (the "Kafka version:" it logged at start) and by its
// ApiVersions answer (the feature levels it supports), and at least one
// swap happened with load running. A broker that refused the release makes
// the evidence missing with Kafka's words.
var onNewRelease = Evidence{Name: "every broker on the new release",
	Missing: "the roll did not put every broker on the target release",
	Find: func(h history.History, _ Conditions) (bool, string) {
		var swapped, underLoad []string
		to := ""
		proofs := map[string]history.Event{}
		for _, e := range h {
			if e.Attrs[faults.AttrPhase] == faults.PhaseDowngrade {
				continue // rolling-downgrade's roll back: downgradeWhole's
			}
			switch {
			case e.F == history.FFaultFired && e.Attrs["action"] == faults.ActionSwap:
				swapped, to = append(swapped, e.Attrs["node"]), e.Attrs[faults.AttrTo]
				if e.Point == "under-load" {
					underLoad = append(underLoad, e.Attrs["node"])
				}
			case e.F == history.FHeal && e.Attrs["action"] == faults.ActionRefused:
				return false, "Kafka refused the roll, which stopped there: " + e.Attrs[faults.AttrRefusal]
			case e.F == history.FRelease:
				proofs[e.Attrs["node"]] = e
			}
		}
		if len(swapped) == 0 {
			return false, ""
		}
		var said []string
		for _, n := range swapped {
			p, ok := proofs[n]
			if !ok || p.Attrs[faults.AttrLogged] != to {
				return false, fmt.Sprintf("broker %s has no proof that it runs %s (logged %q)", n, to, p.Attrs[faults.AttrLogged])
			}
			said = append(said, fmt.Sprintf("broker %s logged Kafka version %s, supports %s", n, p.Attrs[faults.AttrLogged], p.Attrs["supported"]))
		}
		if len(underLoad) == 0 {
			return false, "no broker was swapped while the load ran"
		}
		slices.Sort(underLoad)
		return true, fmt.Sprintf("%s; swapped under load: brokers %s", strings.Join(said, "; "), strings.Join(underLoad, ","))
	}}

// featuresFinalized: after the roll the feature levels were raised to what
// every broker supports, and every broker sees them.
var featuresFinalized = Evidence{Name: "feature levels finalized",
	Missing: "the feature levels were not finalized after the roll",
	Find: func(h history.History, _ Conditions) (bool, string) {
		for _, e := range h {
			if e.F != history.FFeatures {
				continue
			}
			if e.Attrs["error"] != "" {
				return false, "finalizing the feature levels failed: " + e.Attrs["error"]
			}
			if e.Attrs["every_broker_sees_them"] != "true" {
				return false, "not every broker sees the finalized levels: " + e.Attrs["after"]
			}
			return true, fmt.Sprintf("%s -> %s: before %s, after %s (the highest every broker supports: %s), load then %s",
				e.Attrs[faults.AttrFrom], e.Attrs[faults.AttrTo], e.Attrs["before"], e.Attrs["after"], e.Attrs["supported_by_all"], e.Attrs["load"])
		}
		return false, ""
	}}

// downgradeWhole: the roll back to the old release ended whole, either way
// Kafka decided: refused at a broker that was put back on the new release
// (and no broker left on the old one), or every broker on the old release.
// A refused broker not put back, or a roll back that stopped with brokers
// on both releases, is missing: half done.
var downgradeWhole = Evidence{Name: "the downgrade refused cleanly, or done whole",
	Missing: "the roll back to the old release never ran",
	Find: func(h history.History, _ Conditions) (bool, string) {
		var back []string
		tried, from := 0, ""
		for _, e := range h {
			if e.Attrs[faults.AttrPhase] != faults.PhaseDowngrade {
				continue
			}
			switch {
			case e.F == history.FFaultFired:
				tried, from = tried+1, e.Attrs[faults.AttrTo]
			case e.F == history.FHeal && e.Attrs["action"] == faults.ActionSwapped:
				back = append(back, e.Attrs["node"])
			case e.F == history.FHeal && e.Attrs["action"] == faults.ActionRefused:
				if e.Attrs[faults.AttrRolledBack] != "true" {
					return false, "half done: " + e.Attrs[faults.AttrRefusal]
				}
				if len(back) > 0 {
					return false, fmt.Sprintf("half done: brokers %s went back to %s before Kafka refused: %s",
						strings.Join(back, ","), from, e.Attrs[faults.AttrRefusal])
				}
				return true, "Kafka refused the downgrade at the first broker, which runs the new release again: " + e.Attrs[faults.AttrRefusal]
			}
		}
		if tried == 0 {
			return false, ""
		}
		if len(back) < tried {
			return false, fmt.Sprintf("half done: %d of %d brokers went back to %s", len(back), tried, from)
		}
		return true, fmt.Sprintf("Kafka accepted the downgrade: every broker (%s) runs %s again", strings.Join(back, ","), from)
	}}
