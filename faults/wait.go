package faults

import (
	"context"
	"time"
)

// sleepCtx sleeps d, or less when ctx ends; it reports whether it slept the
// whole d.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// healContext is the context a fault heals under: not cancelled with the
// cell (a cell that drained while a broker was down must still get it
// back), but bounded.
func healContext(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), limit)
}

// waitForLoad waits until a fraction of the input is done, so the fault hits a
// loop under load rather than an idle one.
func waitForLoad(ctx context.Context, env Env, fraction float64) error {
	for {
		done, total := env.Progress(ctx)
		if total > 0 && float64(done) >= fraction*float64(total) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
