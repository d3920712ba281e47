package ctp

import (
	"encoding/json"
	"testing"

	"github.com/sharechaos/sharechaos/internal/golden"
)

// poisonCase is one input id under one rule, with Poison.Is's answer.
type poisonCase struct {
	Every  int    `json:"every"`
	Offset int    `json:"offset"`
	ID     string `json:"id"`
	Poison bool   `json:"poison"`
}

// TestPoisonGolden keeps testdata/poison_cases.golden.json equal to
// Poison.Is's answers on ids chosen for the corners of its arithmetic
// (strconv.Atoi's signs and range, Go's remainder of a negative number),
// which the Java worker's rule must give too (clients/java/worker's
// GoldenTest reads this file); -update rewrites it.
func TestPoisonGolden(t *testing.T) {
	ids := []string{"r-000007", "r-000107", "r-000100", "r-000000", "r-000008", "r-7", "r-+7", "r--93", "r--7",
		"r-", "r-x", "r-0x7", "r-1_07", "r-000007 ", "R-000007", "nudge-000007", "", "r-\u0660\u0660\u0667",
		"r-9223372036854775807", "r-9223372036854775808", "r-99999999999999999999"}
	var cases []poisonCase
	for _, rule := range []Poison{{Every: 100, Offset: 7}, {Every: 100, Offset: 0}, {Every: 1, Offset: 0}, {Every: 0, Offset: 7}, {Every: -100, Offset: 7}} {
		for _, id := range ids {
			cases = append(cases, poisonCase{Every: rule.Every, Offset: rule.Offset, ID: id, Poison: rule.Is(id)})
		}
	}
	want, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	golden.Check(t, "poison_cases.golden.json", want, "go test ./workloads/ctp -run TestPoisonGolden")
}
