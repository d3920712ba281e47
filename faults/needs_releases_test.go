package faults

import (
	"context"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// releasesCluster is a cluster that can swap releases, with fixed answers.
type releasesCluster struct{ from, to string }

func (releasesCluster) Name() string                { return "fake" }
func (releasesCluster) Nodes() []cluster.NodeID     { return []cluster.NodeID{1, 2, 3} }
func (releasesCluster) Bootstrap() []string         { return nil }
func (releasesCluster) Close(context.Context) error { return nil }
func (c releasesCluster) Release() string           { return c.from }
func (c releasesCluster) UpgradeTarget() string     { return c.to }
func (releasesCluster) SwapRelease(context.Context, cluster.NodeID, string) (string, error) {
	return "", nil
}

// TestNeedsReleases: rolling-upgrade runs only where the backend swaps
// releases and both ends of the roll are known and differ; each N/A
// reason says what to name.
func TestNeedsReleases(t *testing.T) {
	cases := []struct {
		c    cluster.Cluster
		want string
	}{
		{releasesCluster{"4.2.2", "4.4.0"}, ""},
		{releasesCluster{"4.4.0", "4.2.2"}, ""},
		{releasesCluster{"", "4.4.0"}, "--kafka-version"},
		{releasesCluster{"4.2.2", ""}, "--upgrade-to"},
		{releasesCluster{"4.4.0", "4.4.0"}, "is the upgrade target itself"},
	}
	for _, c := range cases {
		got := needsReleases(c.c)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
	if got := needsReleases(fakeOnly{}); !strings.Contains(got, "cannot") {
		t.Errorf("a backend without releases: %q", got)
	}
}

type fakeOnly struct{}

func (fakeOnly) Name() string                { return "fake" }
func (fakeOnly) Nodes() []cluster.NodeID     { return nil }
func (fakeOnly) Bootstrap() []string         { return nil }
func (fakeOnly) Close(context.Context) error { return nil }
