package verdict

import "testing"

func TestWorstAndExitCodes(t *testing.T) {
	cases := []struct {
		in   []Verdict
		want Verdict
		code int
	}{
		{nil, Pass, 0},
		{[]Verdict{NA, NA}, Pass, 0},
		{[]Verdict{Pass, NA}, Pass, 0},
		{[]Verdict{Pass, Unknown}, Unknown, 2},
		{[]Verdict{Unknown, ThresholdFailed}, ThresholdFailed, 3},
		{[]Verdict{ThresholdFailed, Anomaly, Unknown}, Anomaly, 1},
		{[]Verdict{Anomaly, HarnessError, Pass}, HarnessError, 4},
		{[]Verdict{"SOMETHING-ELSE"}, "SOMETHING-ELSE", 4},
	}
	for _, c := range cases {
		got := Worst(c.in...)
		if got != c.want || got.ExitCode() != c.code {
			t.Errorf("Worst(%v) = %s (exit %d), want %s (exit %d)", c.in, got, got.ExitCode(), c.want, c.code)
		}
	}
}
