package kafkatoxic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

var registerOnce sync.Once

// Register adds the toxic to toxiproxy's registry under TypeName. Call it
// before the server takes requests (toxiproxy looks a type up when a toxic
// is created); calling it again does nothing.
func Register() {
	registerOnce.Do(func() { toxics.Register(TypeName, new(Toxic)) })
}

// Add puts the toxic described by spec on an in-process proxy and returns
// it, to release it, read its status or wait for it to fire. It registers
// the toxic type if that was not done yet.
func Add(proxy *toxiproxy.Proxy, spec Spec) (*Toxic, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	Register()
	body, err := json.Marshal(spec.Body())
	if err != nil {
		return nil, fmt.Errorf("encode kafka toxic: %w", err)
	}
	wrapper, err := proxy.Toxics.AddToxicJson(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("add kafka toxic %s to proxy %s: %w", spec.ToxicName(), proxy.Name, err)
	}
	t, ok := wrapper.Toxic.(*Toxic)
	if !ok {
		return nil, fmt.Errorf("add kafka toxic %s to proxy %s: toxiproxy made a %T", spec.ToxicName(), proxy.Name, wrapper.Toxic)
	}
	return t, nil
}

// Lookup finds the Kafka toxic named name on an in-process proxy.
func Lookup(proxy *toxiproxy.Proxy, name string) (*Toxic, bool) {
	wrapper := proxy.Toxics.GetToxic(name)
	if wrapper == nil {
		return nil, false
	}
	t, ok := wrapper.Toxic.(*Toxic)
	return t, ok
}

// Remove releases the toxic named name and removes it from an in-process
// proxy; held bytes are forwarded in order first. A toxic that is not there
// is not an error. toxiproxy 2.12.0 can hang while removing a toxic (a
// builtin toxic blocked on a dead connection): Remove gives up when ctx ends
// and leaves the removal running.
func Remove(ctx context.Context, proxy *toxiproxy.Proxy, name string) error {
	if t, ok := Lookup(proxy, name); ok {
		t.Release()
	}
	done := make(chan error, 1)
	go func() { done <- proxy.Toxics.RemoveToxic(context.WithoutCancel(ctx), name) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, toxiproxy.ErrToxicNotFound) {
			return fmt.Errorf("remove kafka toxic %s from proxy %s: %w", name, proxy.Name, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("remove kafka toxic %s from proxy %s: %w", name, proxy.Name, context.Cause(ctx))
	}
}
