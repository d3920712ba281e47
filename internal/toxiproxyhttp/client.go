// Package toxiproxyhttp speaks toxiproxy's HTTP API for the docker backend,
// the external backend (a hooks file's toxiproxy) and the faults that act on
// their links. toxiproxy's own Go client takes no context,
// and in 2.12.0 some calls can hang (removing a toxic while a connection is
// blocked): every call here is bounded by its context and by CallTimeout.
package toxiproxyhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// CallTimeout bounds every call.
const CallTimeout = 15 * time.Second

// Client calls one toxiproxy server.
type Client struct {
	base string // e.g. http://127.0.0.1:32768
	http *http.Client
}

// New returns a client of the API at base.
func New(base string) Client {
	return Client{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: CallTimeout}}
}

// StatusError is an answer with another status than the call wanted.
type StatusError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("toxiproxy %s %s: status %d: %s", e.Method, e.Path, e.Status, e.Body)
}

// IsStatus reports whether err is a StatusError with that status.
func IsStatus(err error, status int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == status
}

// Call sends body (JSON, nil for none) and wants the status want; out, when
// not nil, receives the decoded answer.
func (c Client) Call(ctx context.Context, method, path string, body any, want int, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode toxiproxy request: %w", err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return fmt.Errorf("build toxiproxy request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "sharechaos")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("call toxiproxy %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	msg, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("read toxiproxy %s %s: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return &StatusError{Method: method, Path: path, Status: resp.StatusCode, Body: string(bytes.TrimSpace(msg))}
	}
	if out != nil {
		if err := json.Unmarshal(msg, out); err != nil {
			return fmt.Errorf("decode toxiproxy %s %s: %w", method, path, err)
		}
	}
	return nil
}

// Proxy is one proxy as GET /proxies shows it, with the toxics on it.
type Proxy struct {
	Name     string  `json:"name"`
	Listen   string  `json:"listen"`
	Upstream string  `json:"upstream"`
	Enabled  bool    `json:"enabled"`
	Toxics   []Toxic `json:"toxics"`
}

// Toxic is one toxic of a Proxy, without its attributes.
type Toxic struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Stream string `json:"stream"`
}

// Proxies lists every proxy of the server by name.
func (c Client) Proxies(ctx context.Context) (map[string]Proxy, error) {
	var ps map[string]Proxy
	if err := c.Call(ctx, http.MethodGet, "/proxies", nil, http.StatusOK, &ps); err != nil {
		return nil, fmt.Errorf("list toxiproxy proxies: %w", err)
	}
	return ps, nil
}

// RemoveToxic removes a toxic from a proxy; one that is not there is not an
// error. With release not nil it first sends release as the toxic's update
// (PATCH): a Kafka toxic that holds frames lets go of them that way, and
// removing one that still holds can hang.
func (c Client) RemoveToxic(ctx context.Context, proxy, name string, release any) error {
	path := "/proxies/" + proxy + "/toxics/" + name
	if release != nil {
		err := c.Call(ctx, http.MethodPatch, path, release, http.StatusOK, nil)
		if IsStatus(err, http.StatusNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("release toxic %s on %s: %w", name, proxy, err)
		}
	}
	err := c.Call(ctx, http.MethodDelete, path, nil, http.StatusNoContent, nil)
	if err != nil && !IsStatus(err, http.StatusNotFound) {
		return fmt.Errorf("remove toxic %s from %s: %w", name, proxy, err)
	}
	return nil
}
