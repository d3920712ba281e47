package docker

import (
	"context"
	"net/http"

	"github.com/sharechaos/sharechaos/internal/toxiproxyhttp"
)

// proxyAPI speaks toxiproxy's HTTP API (bounded calls: internal/toxiproxyhttp).
type proxyAPI struct{ c toxiproxyhttp.Client }

func newProxyAPI(base string) proxyAPI { return proxyAPI{c: toxiproxyhttp.New(base)} }

type proxySpec struct {
	Name     string `json:"name"`
	Listen   string `json:"listen"`
	Upstream string `json:"upstream"`
	Enabled  bool   `json:"enabled"`
}

type toxicSpec struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"` // upstream | downstream
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// populate creates (or replaces) the proxies in one request.
func (a proxyAPI) populate(ctx context.Context, proxies []proxySpec) error {
	return a.call(ctx, http.MethodPost, "/populate", proxies, http.StatusCreated)
}

// setEnabled enables or disables a proxy. Disabling closes its listener and
// every connection through it.
func (a proxyAPI) setEnabled(ctx context.Context, proxy string, enabled bool) error {
	return a.call(ctx, http.MethodPatch, "/proxies/"+proxy, map[string]bool{"enabled": enabled}, http.StatusOK)
}

// setToxic adds a toxic, or updates it when one of that name exists.
func (a proxyAPI) setToxic(ctx context.Context, proxy string, t toxicSpec) error {
	err := a.call(ctx, http.MethodPost, "/proxies/"+proxy+"/toxics", t, http.StatusOK)
	if toxiproxyhttp.IsStatus(err, http.StatusConflict) {
		return a.call(ctx, http.MethodPatch, "/proxies/"+proxy+"/toxics/"+t.Name, t, http.StatusOK)
	}
	return err
}

// removeToxic removes a toxic; one that does not exist is not an error.
func (a proxyAPI) removeToxic(ctx context.Context, proxy, name string) error {
	return a.c.RemoveToxic(ctx, proxy, name, nil)
}

// reset enables every proxy and removes every toxic.
func (a proxyAPI) reset(ctx context.Context) error {
	return a.call(ctx, http.MethodPost, "/reset", nil, http.StatusNoContent)
}

func (a proxyAPI) call(ctx context.Context, method, path string, body any, want int) error {
	return a.c.Call(ctx, method, path, body, want, nil)
}
