package benchrun

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
)

// TestCompareReleases: each release's repeats against the first release's,
// per mode and batch, one value per repeat (its commit p50); a failed
// repeat is left out.
func TestCompareReleases(t *testing.T) {
	benchOf := func(base float64, failed bool) result.Bench {
		var b result.Bench
		for rep := 1; rep <= 5; rep++ {
			for _, m := range []string{"explicit", "transactional"} {
				r := result.BenchRun{Mode: m, Batch: 10, Repeat: rep,
					Latency: map[string]result.Percentiles{bench.TxnCommitDuration: {Count: 100, P50: base + float64(rep)}}}
				if m == "transactional" {
					r.Realization = "ledger"
				}
				if failed && rep == 5 {
					r.Error = "cluster gone"
				}
				b.Runs = append(b.Runs, r)
			}
		}
		return b
	}
	got := compareAlong([]string{"4.2.2", "4.4.0"}, []result.Bench{benchOf(10, false), benchOf(30, true)}, 0.05)
	if len(got) != 2 {
		t.Fatalf("rows %+v", got)
	}
	for _, c := range got {
		if c.Baseline != "4.2.2" || c.Candidate != "4.4.0" || c.N1 != 5 || c.N2 != 4 || !c.Significant || !strings.Contains(c.Words, "4.4.0 slower") {
			t.Errorf("%+v", c)
		}
	}
	if got[1].Mode != "transactional/ledger" || got[0].Scenario != "bench, batch 10" {
		t.Errorf("labels: %+v", got)
	}
	if md := alongWords(alongFile{axis: benchAxes[0], Comparisons: got}); !strings.Contains(md, "| explicit | bench, batch 10 | 4.4.0 | 4.2.2 |") {
		t.Errorf("releases.md:\n%s", md)
	}
}

// axisNamed is the bench axis of that name.
func axisNamed(t *testing.T, name string) benchAxis {
	t.Helper()
	for _, a := range benchAxes {
		if a.name == name {
			return a
		}
	}
	t.Fatalf("no bench axis %q", name)
	return benchAxis{}
}

// TestBenchAlongImages: two images are a bench along images (a patched
// build beside its stock image), each value's bench runs that image alone
// in a directory named after it, and images.md is the page to read.
func TestBenchAlongImages(t *testing.T) {
	var o Options
	o.Backends.Docker.KafkaImages = []string{"sharechaos/kafka:4.3.1", "sharechaos/kafka-kip1289:4.3.1"}
	o.Clients = []string{"go", "java"}
	a, ok := benchAxisOf(o)
	if !ok || a.name != "image" || ReportFile(o) != "images.md" {
		t.Fatalf("two images and two clients: axis %q %v, page %s; want image, images.md", a.name, ok, ReportFile(o))
	}
	only := a.only(o, "sharechaos/kafka-kip1289:4.3.1")
	if got := only.Backends.Docker.KafkaImages; len(got) != 1 || got[0] != "sharechaos/kafka-kip1289:4.3.1" {
		t.Errorf("the patched image's bench runs %v", got)
	}
	if _, ok := benchAxisOf(only); !ok {
		t.Error("inside one image's bench the clients are no longer a dimension")
	}
	if d := a.dir("sharechaos/kafka-kip1289:4.3.1"); d != "image-sharechaos_kafka-kip1289_4.3.1" {
		t.Errorf("dir %q", d)
	}
}

// TestBenchAxes: releases are the outer dimension, clients the inner; one
// value is no dimension; clients.json spells its values with the client's
// words, and the page a person reads first follows.
func TestBenchAxes(t *testing.T) {
	var o Options
	o.Clients = []string{"go"}
	if _, ok := benchAxisOf(o); ok || ReportFile(o) != "summary.md" {
		t.Error("one client is a bench along clients")
	}
	o.Clients = []string{"go", "java"}
	a, ok := benchAxisOf(o)
	if !ok || a.name != "client" || ReportFile(o) != "clients.md" {
		t.Fatalf("go,java: %+v %v", a, ok)
	}
	if only := a.only(o, "java"); len(only.Clients) != 1 || only.Clients[0] != "java" {
		t.Errorf("java's bench runs %v", only.Clients)
	}
	o.Backends.Docker.KafkaVersions = []string{"4.2.2", "4.4.0"}
	if a, _ := benchAxisOf(o); a.name != "release" {
		t.Errorf("releases and clients: the outer is %s, want release", a.name)
	}
	f := alongFile{axis: a, Verdict: "PASS", Values: []valueBench{{Value: "4.2.2", Dir: "kafka-4.2.2", Verdict: "PASS"}}}
	f.axis = axisNamed(t, "client")
	f.Values[0].Value, f.Values[0].Dir = "java", "client-java"
	b, err := f.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"clients":[{"client":"java","dir":"client-java","verdict":"PASS"}]`) || !strings.Contains(string(b), `"comparisons":[]`) {
		t.Errorf("clients.json: %s %v", b, err)
	}
}
