package scenarios

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/history"
)

// deadLettered: the cell's dead-letter topic held records after the drain
// (the orchestrator's dead-letters event): the broker archived poison and
// dead-lettered it, so the dead-letters part had something to match. An
// empty topic tested nothing.
var deadLettered = Evidence{Name: "poison dead-lettered",
	Missing: "the cell never read its dead-letter topic",
	Find: func(h history.History, _ Conditions) (bool, string) {
		for _, e := range h {
			if e.F != history.FDeadLetters {
				continue
			}
			if e.Attrs["records"] == "0" {
				return false, fmt.Sprintf("the dead-letter topic %s held nothing after the drain (%s poison inputs)", e.Attrs["topic"], e.Attrs["poison"])
			}
			return true, fmt.Sprintf("%s held %s records for %s poison inputs", e.Attrs["topic"], e.Attrs["records"], e.Attrs["poison"])
		}
		return false, ""
	}}
