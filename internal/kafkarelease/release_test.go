package kafkarelease

import "testing"

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"4.2.2", "4.4.0", -1}, {"4.4.0", "4.3.2", 1}, {"4.10.0", "4.9.1", 1}, {"4.3.2", "4.3.2", 0},
		{"4.4.0-rc1", "4.4.0", -1}, {"4.4.0", "4.4.0-rc1", 1}, {"4.4.0-rc1", "4.4.0-rc2", -1},
	}
	for _, c := range cases {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if n := Newest([]string{"4.3.2", "4.4.0", "4.2.2"}); n != "4.4.0" {
		t.Errorf("Newest = %s", n)
	}
	if n := Newest(nil); n != "" {
		t.Errorf("Newest(nil) = %q", n)
	}
	for _, bad := range []string{"4.2", "latest", "4.2.2;rm", "../4.2.2", ""} {
		if Check(bad) == nil {
			t.Errorf("Check(%q) accepted", bad)
		}
	}
	if Check("4.3.0-rc1") != nil {
		t.Error("a release candidate is refused")
	}
}
