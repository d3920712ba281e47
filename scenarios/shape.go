package scenarios

import (
	"fmt"
	"strings"
)

// Shape is what a cell runs on, as far as rows depend on it: its worker
// slots, its input and output partitions, the records per poll, and the
// cluster's brokers. A zero field is unknown.
type Shape struct {
	Workers    int
	Partitions int32
	Batch      int32
	Brokers    int
}

// ShapeNeed is the least shape a row's cells need to show what the row
// names: a cell with less cannot (one worker cannot race another for a
// record), so it is N/A before it starts, never UNKNOWN after it ran.
// Zero fields need nothing.
type ShapeNeed struct {
	Shape
	// Why says what the row does with it, for the N/A reason.
	Why string
}

// lackedBy says what s lacks of n, "" when nothing. Unknown fields of s
// are not judged.
func (n ShapeNeed) lackedBy(s Shape) string {
	type part struct {
		need, have int64
		words      func(int64) string
	}
	parts := []part{
		{int64(n.Workers), int64(s.Workers), func(v int64) string { return plural(v, "worker") }},
		{int64(n.Partitions), int64(s.Partitions), func(v int64) string { return plural(v, "partition") }},
		{int64(n.Batch), int64(s.Batch), func(v int64) string { return fmt.Sprintf("a batch of %d", v) }},
		{int64(n.Brokers), int64(s.Brokers), func(v int64) string { return plural(v, "broker") }},
	}
	var need, have []string
	for _, p := range parts {
		if p.need > 0 && p.have > 0 && p.have < p.need {
			need = append(need, p.words(p.need))
			have = append(have, p.words(p.have))
		}
	}
	if len(need) == 0 {
		return ""
	}
	return fmt.Sprintf("needs at least %s (%s); this cell has %s", strings.Join(need, ", "), n.Why, strings.Join(have, ", "))
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Over is the run's shape with the row's own load (Load) in place of the
// run's where the row sets it: the shape its cells run with.
func (l Load) Over(run Shape) Shape {
	if l.Workers > 0 {
		run.Workers = l.Workers
	}
	if l.Partitions > 0 {
		run.Partitions = l.Partitions
	}
	if l.Batch > 0 {
		run.Batch = l.Batch
	}
	return run
}
