package conformance

import (
	"errors"
	"fmt"
)

// want checks a step's answer: nil for success, else the Kafka error
// (errors.Is).
func want(step string, got, wanted error) error {
	if wanted == nil {
		if got != nil {
			return fmt.Errorf("%s: %v, want success", step, got)
		}
		return nil
	}
	if !errors.Is(got, wanted) {
		return fmt.Errorf("%s: %v, want %v", step, orOK(got), wanted)
	}
	return nil
}

// wantByKind checks a step on which the brokers differ (the case's
// Differs names the finding): each broker's own answer.
func (e *Env) wantByKind(step string, got error, wanted map[Kind]error) error {
	w, ok := wanted[e.Broker.Kind]
	if !ok {
		return fmt.Errorf("%s: no answer expected of %s", step, e.Broker.Kind)
	}
	return want(step+" ("+string(e.Broker.Kind)+")", got, w)
}

func orOK(err error) any {
	if err == nil {
		return "success"
	}
	return err
}
