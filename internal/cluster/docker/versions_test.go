package docker

import "testing"

func TestCompareReleases(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"4.2.2", "4.4.0", -1}, {"4.4.0", "4.3.2", 1}, {"4.10.0", "4.9.1", 1}, {"4.3.2", "4.3.2", 0},
		{"4.4.0-rc1", "4.4.0", -1}, {"4.4.0", "4.4.0-rc1", 1}, {"4.4.0-rc1", "4.4.0-rc2", -1},
	}
	for _, c := range cases {
		if got := CompareReleases(c.a, c.b); got != c.want {
			t.Errorf("CompareReleases(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if n := Newest([]string{"4.3.2", "4.4.0", "4.2.2"}); n != "4.4.0" {
		t.Errorf("Newest = %s", n)
	}
	if n := Newest(nil); n != "" {
		t.Errorf("Newest(nil) = %q", n)
	}
	for _, bad := range []string{"4.2", "latest", "4.2.2;rm", "../4.2.2", ""} {
		if CheckVersion(bad) == nil {
			t.Errorf("CheckVersion(%q) accepted", bad)
		}
	}
	if CheckVersion("4.3.0-rc1") != nil || VersionImage("4.4.0") != "sharechaos/kafka:4.4.0" {
		t.Error("a release candidate or the image of a release is refused")
	}
}

func TestRefusal(t *testing.T) {
	log := "[x] INFO starting\n[y] ERROR Got exception while starting SharedServer\norg.apache.kafka.server.common.serialization.MetadataParseException: bad\n\tat x\n"
	if got := refusal(log); got != "[y] ERROR Got exception while starting SharedServer | org.apache.kafka.server.common.serialization.MetadataParseException: bad" {
		t.Errorf("refusal = %q", got)
	}
	if got := loggedVersion("INFO Kafka version: 4.2.2 (a)\nINFO Kafka version: 4.4.0 (b)"); got != "4.4.0" {
		t.Errorf("loggedVersion = %q, want the last", got)
	}
}
