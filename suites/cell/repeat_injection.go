package cell

import (
	"context"
	"maps"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

// repeatInjection injects m, and while until (zero: never) has not come,
// pauses and injects it again; every injection heals before the next
// starts, and none starts after until. The report is every injection's,
// in order; each firing's event names its injection.
func repeatInjection(ctx context.Context, m faults.Mechanism, env faults.Env, pause time.Duration, until time.Time) (faults.Report, error) {
	if until.IsZero() {
		return faults.Inject(ctx, m, env)
	}
	all := faults.Report{Name: env.Name}
	fired := env.Fired
	for k := 1; ; k++ {
		e := env
		e.Fired = func(ev history.Event) {
			ev.Attrs = maps.Clone(ev.Attrs)
			if ev.Attrs == nil {
				ev.Attrs = map[string]string{}
			}
			ev.Attrs["injection"] = strconv.Itoa(k)
			if fired != nil {
				fired(ev)
			}
		}
		rep, err := faults.Inject(ctx, m, e)
		all.Fired = append(all.Fired, rep.Fired...)
		all.Healed = append(all.Healed, rep.Healed...)
		if err != nil || ctx.Err() != nil || !time.Now().Add(pause).Before(until) {
			return all, err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return all, nil
		case <-t.C:
		}
	}
}
