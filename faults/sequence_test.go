package faults

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

func TestSequenceRunsStepsInOrderAndNeedsEveryOne(t *testing.T) {
	var ran []string
	step := func(name string, needs string) Step {
		return Step{Name: name, After: time.Millisecond, Mechanism: Mechanism{
			Act: func(_ context.Context, env Env) error {
				ran = append(ran, name+"@"+env.attrs["part"]+"/"+env.attrs["schedule"])
				return nil
			},
			Needs: func(cluster.Cluster) string { return needs },
		}}
	}
	m := Sequence([]Step{step("a", ""), step("b", "")})
	if err := m.Act(context.Background(), Env{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a@a/a,b", "b@b/a,b"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if why := Sequence([]Step{step("a", ""), step("b", "no network")}).Needs(nil); !strings.Contains(why, "step b: no network") {
		t.Errorf("needs %q: want step b's reason", why)
	}
	failing := Step{Name: "c", Mechanism: Mechanism{Act: func(context.Context, Env) error { return errors.New("boom") }}}
	if err := Sequence([]Step{failing}).Act(context.Background(), Env{Name: "s"}); err == nil || !strings.Contains(err.Error(), "step 1 (c): boom") {
		t.Errorf("error %v: want it to name the step", err)
	}
}
