package result

import "testing"

// TestCellNameClient: the default client leaves a cell's name as runs
// before clients gave it; another client is named after a '~', before the
// release.
func TestCellNameClient(t *testing.T) {
	for _, c := range []struct {
		cell Cell
		want string
	}{
		{Cell{Scenario: "steady", Mode: "explicit", Backend: "embedded"}, "steady/explicit/embedded"},
		{Cell{Scenario: "steady", Mode: "explicit", Backend: "embedded", Client: "go"}, "steady/explicit/embedded"},
		{Cell{Scenario: "steady", Mode: "explicit", Backend: "embedded", Client: "java"}, "steady/explicit/embedded~java"},
		{Cell{Scenario: "steady", Mode: "transactional", Backend: "docker", Realization: "ledger", Client: "java", KafkaVersion: "4.4.0"},
			"steady/transactional/docker/ledger~java@4.4.0"},
		{Cell{Scenario: "steady", Mode: "transactional", Backend: "docker", Realization: "ledger", Client: "go", KafkaVersion: "4.4.0"},
			"steady/transactional/docker/ledger@4.4.0"},
	} {
		if got := c.cell.Name(); got != c.want {
			t.Errorf("%+v: name %q, want %q", c.cell, got, c.want)
		}
	}
}

// TestDimensionValues: a cell without a client is the default's; a run
// without releases has no value on Releases; the order is the cells'.
func TestDimensionValues(t *testing.T) {
	cells := []Cell{{Client: "java"}, {}, {Client: "go"}, {Client: "java"}}
	if got := Clients.Values(cells); len(got) != 2 || got[0] != "java" || got[1] != "go" {
		t.Errorf("clients %v, want [java go]", got)
	}
	if got := Releases.Values(cells); len(got) != 0 {
		t.Errorf("releases %v, want none", got)
	}
	a := Cell{Client: "java", KafkaVersion: "4.2.2"}
	b := Cell{Client: "go", KafkaVersion: "4.2.2"}
	if Clients.Others(a) != Clients.Others(b) {
		t.Errorf("two clients on one release are not compared: %q vs %q", Clients.Others(a), Clients.Others(b))
	}
	if Releases.Others(a) == Releases.Others(b) {
		t.Error("two clients' cells pooled in a comparison of releases")
	}
	if w := Clients.Within(Comparison{}, a); w.KafkaVersion != "4.2.2" || w.Client != "" {
		t.Errorf("a comparison of clients sits at %+v, want the release only", w)
	}
}
