package faults

import (
	"context"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
)

// PointStateWriteReset is where StateWriteReset fires: the connection
// carrying a share-partition leader's state write to its share coordinator
// was reset.
const PointStateWriteReset = "state-write-reset"

// stateWriteResetTries bounds the adds of the reset toxic: one added while
// a frame was half-way through the link passes that connection unparsed
// (kafkatoxic's caveat) and is added anew.
const stateWriteResetTries = 3

// StateWriteReset drops a share-partition leader's connection to its share
// coordinator at a state write (WriteShareGroupState), a transient failure
// between two brokers: the leader's persister resends the write about 2 s
// later, after newer writes of the share-partition may have landed. A
// correct Kafka loses nothing and delivers nothing acknowledged again.
// (stale-share-state-write makes the resend's late landing certain, with
// the leader move that reloads it: apache/kafka #23074.)
var StateWriteReset = Mechanism{Act: stateWriteReset, Needs: needsStaleStateWrite}

func stateWriteReset(ctx context.Context, env Env) error {
	t, ended, err := prepareStaleWrite(ctx, env)
	if t != nil {
		defer t.close(ctx)
	}
	if ended || err != nil {
		return err
	}
	s := t.write
	for s.attempt = 1; s.attempt <= stateWriteResetTries; s.attempt++ {
		spec := kafkatoxic.Spec{Name: s.name("reset-any"), Action: kafkatoxic.ActionReset, APIKey: kafkatoxic.WriteShareGroupStateKey, Nth: 1}
		if err := s.add(ctx, spec); err != nil {
			return err
		}
		st, ok, err := s.waitFired(ctx, spec.Name, staleResetWait)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if ok {
			fired(env, PointStateWriteReset, time.Now(), map[string]string{"action": "connection reset at a share-partition leader's state write",
				"partition": t.input, "leader": strconv.Itoa(int(t.leader)), "share_coordinator": strconv.Itoa(int(t.coord)),
				"link": s.link, "attempt": strconv.Itoa(s.attempt)})
			s.removeAll(ctx)
			healed(env, time.Now(), map[string]string{"action": "the reset toxic removed: the persister's resend goes through", "link": s.link})
			return nil
		}
		why := "no state write crossed the link within " + staleResetWait.String()
		if st.Desynced > 0 {
			why = "the toxic joined the link in the middle of a frame (desynced)"
		}
		prepared(env, time.Now(), map[string]string{"action": "state write reset let go", "attempt": strconv.Itoa(s.attempt), "why": why})
		s.removeAll(ctx)
	}
	return nil
}
