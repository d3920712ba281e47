package suites

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/judge"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestVersionsDocker runs three rows over two releases: a cluster each, the
// release in every cell's name and result, each release's cluster
// described, the releases compared, plan.json naming every cell, and a
// re-check that gives the same. The other rows are known Kafka bugs
// (apache/kafka #23074 and #23112, fixed in 4.4.0): each must be ANOMALY
// with its anomaly on 4.2.2 and PASS on 4.4.0. Needs the images of
// 4.2.2 and 4.4.0 (make images KAFKA_VERSIONS="4.2.2 4.4.0"); skipped
// without them.
func TestVersionsDocker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real Kafka in containers; skipped with -short")
	}
	requireDocker(t)
	releases := []string{"4.2.2", "4.4.0"}
	if missing, err := docker.MissingImages(context.Background(), []string{docker.VersionImage("4.2.2"), docker.VersionImage("4.4.0")}); err != nil || len(missing) > 0 {
		t.Skipf("images of %v: missing %v (%v)", releases, missing, err)
	}
	o := Options{Common: harness.Common{Backend: "docker", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 23,
		Backends: harness.BackendFlags{Docker: harness.DockerFlags{KafkaVersions: releases}}},
		Scenarios: []string{"steady", "stale-share-state-write", "stale-delivery-count-write"}, Records: 300}
	res := runMatrix(t, o)
	if len(res.Runs) != 6 {
		t.Fatalf("%d cells; want two rows on each release", len(res.Runs))
	}
	ran := map[string]bool{}
	for i, c := range res.Runs {
		release := c.KafkaVersion
		ran[c.Scenario+"@"+release] = true
		if !slices.Contains(releases, release) || !strings.HasSuffix(c.Name(), "@"+release) {
			t.Errorf("cell %d: %s release %q", i, c.Name(), c.KafkaVersion)
		}
		want, shows := verdict.Pass, ""
		if sc, _ := scenarios.Lookup(c.Scenario); sc.KnownBug != nil && release == "4.2.2" {
			want, shows = verdict.Anomaly, sc.KnownBug.Shows
		}
		if c.Verdict != want || (shows != "" && c.Anomalies[shows].Count == 0) {
			t.Errorf("%s: %s (%s) %v, want %s %s (a known bug's anomaly on the release without its fix)", c.Name(), c.Verdict, c.Reason, c.Anomalies, want, shows)
		}
	}
	if len(ran) != 6 {
		t.Errorf("cells ran %v: want each row on each release", ran)
	}
	if len(res.Clusters) != 2 || res.Clusters[1].Release != "4.4.0" || res.Clusters[1].Features["share.version"] != 2 {
		t.Errorf("clusters %+v: want two, 4.4.0's at share.version 2", res.Clusters)
	}
	if len(res.VersionComparisons) != 3 || res.VersionComparisons[0].Candidate != "4.4.0" {
		t.Errorf("comparisons %+v: want 4.4.0 against 4.2.2, per row", res.VersionComparisons)
	}
	plan, ok, err := judge.ReadPlan(res.Dir)
	if err != nil || !ok || len(plan.Cells) != 6 || plan.Cells[5].KafkaVersion != "4.4.0" {
		t.Errorf("plan.json: %+v %v %v", plan, ok, err)
	}
	again, changed, err := judge.Recheck(res.Dir)
	if err != nil || len(changed) > 0 || len(again.VersionComparisons) != 3 {
		t.Errorf("re-check: %v, changed %v, comparisons %d", err, changed, len(again.VersionComparisons))
	}
}
