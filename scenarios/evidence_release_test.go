package scenarios

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

func orch(ts int64, f, point string, attrs map[string]string) history.Event {
	e := ev(ts, "orchestrator", history.Info, f)
	e.Point, e.Attrs = point, attrs
	return e
}

// upgradeHistory is a roll of two brokers to 4.4.0, proven and finalized.
func upgradeHistory() history.History {
	swap := func(ts int64, node, point string) history.Event {
		return orch(ts, history.FFaultFired, point, map[string]string{"action": faults.ActionSwap, "node": node, faults.AttrTo: "4.4.0"})
	}
	on := func(ts int64, node string) history.Event {
		return orch(ts, history.FHeal, "", map[string]string{"action": faults.ActionSwapped, "node": node, faults.AttrLogged: "4.4.0"})
	}
	proof := func(ts int64, node, logged string) history.Event {
		return orch(ts, history.FRelease, "", map[string]string{"node": node, faults.AttrLogged: logged, "supported": "share.version=2"})
	}
	return history.History{
		swap(1, "1", "under-load"), on(2, "1"), swap(3, "2", "after-drain"), on(4, "2"),
		proof(5, "1", "4.4.0"), proof(5, "2", "4.4.0"),
		orch(6, history.FFeatures, "", map[string]string{"before": "share.version=1", "after": "share.version=2", "every_broker_sees_them": "true"}),
	}
}

// TestRollingUpgradeEvidence: a full roll, proven and finalized, shows
// its evidence; a refused broker, a broker without proof or with another
// version, a roll with no swap under load, and finalization that failed or
// that not every broker sees make it missing, with words that say which.
func TestRollingUpgradeEvidence(t *testing.T) {
	row, ok := Lookup("rolling-upgrade")
	if !ok {
		t.Fatal("no rolling-upgrade row")
	}
	if notes, missing := Show(row.Evidence, upgradeHistory(), Conditions{}); missing != nil {
		t.Fatalf("a full roll lacks %s: %s", missing.Name, missing.Missing)
	} else if !strings.Contains(strings.Join(notes, "\n"), "swapped under load: brokers 1") {
		t.Errorf("notes do not say which swaps met the load: %v", notes)
	}
	edit := func(f func(h history.History) history.History) history.History { return f(upgradeHistory()) }
	cases := []struct {
		name, want string
		h          history.History
	}{
		{"refused", "Kafka refused the roll", edit(func(h history.History) history.History {
			h[1] = orch(2, history.FHeal, "", map[string]string{"action": faults.ActionRefused, faults.AttrRefusal: "broker 1 refused"})
			return h[:2]
		})},
		{"no proof of broker 2", "broker 2 has no proof", edit(func(h history.History) history.History { return append(h[:5], h[6]) })},
		{"broker 2 on another version", "broker 2 has no proof that it runs 4.4.0", edit(func(h history.History) history.History {
			h[5].Attrs = map[string]string{"node": "2", faults.AttrLogged: "4.2.2"}
			return h
		})},
		{"nothing under load", "no broker was swapped while the load ran", edit(func(h history.History) history.History {
			h[0].Point = "after-drain"
			return h
		})},
		{"finalization failed", "finalizing the feature levels failed", edit(func(h history.History) history.History {
			h[6].Attrs["error"] = "INVALID_UPDATE_VERSION"
			return h
		})},
		{"not seen everywhere", "not every broker sees", edit(func(h history.History) history.History {
			h[6].Attrs["every_broker_sees_them"] = "false"
			return h
		})},
		{"never finalized", "were not finalized", edit(func(h history.History) history.History { return h[:6] })},
	}
	for _, c := range cases {
		_, missing := Show(row.Evidence, c.h, Conditions{})
		if missing == nil {
			t.Errorf("%s: evidence shown, want missing", c.name)
			continue
		}
		if !strings.Contains(missing.Missing, c.want) {
			t.Errorf("%s: missing %q, want it to say %q", c.name, missing.Missing, c.want)
		}
	}
}

// TestRollingDowngradeEvidence: a refusal at the first broker that was put
// back, and a downgrade Kafka accepted on every broker, are whole; a
// refusal not put back, a refusal after a broker went back, and a roll
// back that stopped are half done; the upgrade's evidence ignores the
// roll back's refusal.
func TestRollingDowngradeEvidence(t *testing.T) {
	row, _ := Lookup("rolling-downgrade")
	back := func(ts int64, node, action string, extra ...string) []history.Event {
		f := orch(ts, history.FFaultFired, "after-drain", map[string]string{"action": faults.ActionSwap, "node": node,
			faults.AttrTo: "4.2.2", faults.AttrPhase: faults.PhaseDowngrade})
		a := map[string]string{"action": action, "node": node, faults.AttrPhase: faults.PhaseDowngrade}
		for i := 0; i+1 < len(extra); i += 2 {
			a[extra[i]] = extra[i+1]
		}
		return []history.Event{f, orch(ts+1, history.FHeal, "", a)}
	}
	with := func(evs ...[]history.Event) history.History {
		h := upgradeHistory()
		for _, e := range evs {
			h = append(h, e...)
		}
		return h
	}
	refused := func(ts int64, node, rolled string) []history.Event {
		return back(ts, node, faults.ActionRefused, faults.AttrRefusal, "No MetadataVersion with feature level 33", faults.AttrRolledBack, rolled)
	}
	whole := []history.History{
		with(refused(10, "1", "true")),
		with(back(10, "1", faults.ActionSwapped), back(12, "2", faults.ActionSwapped)),
	}
	for i, h := range whole {
		if _, missing := Show(row.Evidence, h, Conditions{}); missing != nil {
			t.Errorf("whole %d: missing %s: %s", i, missing.Name, missing.Missing)
		}
	}
	half := []history.History{
		with(refused(10, "1", "false")),
		with(back(10, "1", faults.ActionSwapped), refused(12, "2", "true")),
		with(back(10, "1", faults.ActionSwapped), back(12, "2", faults.ActionSwapped)[:1]),
		upgradeHistory(),
	}
	for i, h := range half {
		_, missing := Show(row.Evidence, h, Conditions{})
		if missing == nil || missing.Name != downgradeWhole.Name {
			t.Errorf("half %d: %+v, want the downgrade evidence missing", i, missing)
		} else if i < 3 && !strings.Contains(missing.Missing, "half done") {
			t.Errorf("half %d: %q does not say half done", i, missing.Missing)
		}
	}
}
