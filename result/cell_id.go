package result

import "fmt"

// ID tells apart the repeats of one cell: Name() plus "#" and the repeat. Name()
// alone is what `go test -run` and --scenario select; ID keys per-cell data
// (Figures) and names JUnit test cases when a run holds several repeats.
func (c Cell) ID() string {
	return fmt.Sprintf("%s#%d", c.Name(), c.Repeat)
}
