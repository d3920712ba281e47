package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// proxyAPI speaks toxiproxy's HTTP API. toxiproxy's own Go client takes no
// context, and in 2.12.0 some calls can hang (removing a toxic while a
// connection is blocked): every call here is bounded by its context and by
// apiCallTimeout.
type proxyAPI struct {
	base string // e.g. http://127.0.0.1:32768
	http *http.Client
}

const apiCallTimeout = 15 * time.Second

func newProxyAPI(base string) proxyAPI {
	return proxyAPI{base: base, http: &http.Client{Timeout: apiCallTimeout}}
}

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
	if apiErr, ok := err.(*proxyAPIError); ok && apiErr.status == http.StatusConflict {
		return a.call(ctx, http.MethodPatch, "/proxies/"+proxy+"/toxics/"+t.Name, t, http.StatusOK)
	}
	return err
}

// removeToxic removes a toxic; one that does not exist is not an error.
func (a proxyAPI) removeToxic(ctx context.Context, proxy, name string) error {
	err := a.call(ctx, http.MethodDelete, "/proxies/"+proxy+"/toxics/"+name, nil, http.StatusNoContent)
	if apiErr, ok := err.(*proxyAPIError); ok && apiErr.status == http.StatusNotFound {
		return nil
	}
	return err
}

// reset enables every proxy and removes every toxic.
func (a proxyAPI) reset(ctx context.Context) error {
	return a.call(ctx, http.MethodPost, "/reset", nil, http.StatusNoContent)
}

type proxyAPIError struct {
	method, path string
	status       int
	body         string
}

func (e *proxyAPIError) Error() string {
	return fmt.Sprintf("toxiproxy %s %s: status %d: %s", e.method, e.path, e.status, e.body)
}

func (a proxyAPI) call(ctx context.Context, method, path string, body any, want int) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode toxiproxy request: %w", err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, r)
	if err != nil {
		return fmt.Errorf("build toxiproxy request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "sharechaos")
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("call toxiproxy %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != want {
		return &proxyAPIError{method: method, path: path, status: resp.StatusCode, body: string(bytes.TrimSpace(msg))}
	}
	return nil
}
