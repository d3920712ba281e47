package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/toxiproxyhttp"
)

// proxyAPIHolder is a backend whose links sit behind a toxiproxy that
// answers its HTTP API and knows the Kafka toxic (the docker backend:
// docker.Cluster.ProxyAPI). Faults that act on single Kafka requests of
// single links (case 4's held WriteTxnMarkers, late-endtxn's capture) need
// it; the embedded backend keeps its proxies in-process without an API.
type proxyAPIHolder interface {
	ProxyAPI() string
}

// linkKind is what a proxied link carries, as the docker backend names its
// proxies (docker/topology.go): "client-<to>", "internal-<from>-<to>",
// "controller-<from>-<to>".
type linkKind string

const (
	linkClient     linkKind = "client"
	linkInternal   linkKind = "internal"
	linkController linkKind = "controller"
)

// link is one proxy of the cluster: connections of From (0 for clients)
// to To's listener of Kind.
type link struct {
	Name     string
	Kind     linkKind
	From, To cluster.NodeID
}

// parseLinkName reads a proxy name of the docker backend's layout. ok is
// false for a name of another layout.
func parseLinkName(name string) (link, bool) {
	parts := strings.Split(name, "-")
	num := func(s string) (cluster.NodeID, bool) {
		n, err := strconv.ParseInt(s, 10, 32)
		return cluster.NodeID(n), err == nil && n >= 0
	}
	switch {
	case len(parts) == 2 && parts[0] == string(linkClient):
		to, ok := num(parts[1])
		return link{Name: name, Kind: linkClient, To: to}, ok
	case len(parts) == 3 && (parts[0] == string(linkInternal) || parts[0] == string(linkController)):
		from, ok1 := num(parts[1])
		to, ok2 := num(parts[2])
		return link{Name: name, Kind: linkKind(parts[0]), From: from, To: to}, ok1 && ok2
	}
	return link{}, false
}

// toxiAPI speaks the toxiproxy HTTP API for the Kafka toxic (bounded calls:
// internal/toxiproxyhttp).
type toxiAPI struct{ c toxiproxyhttp.Client }

func newToxiAPI(base string) toxiAPI { return toxiAPI{c: toxiproxyhttp.New(base)} }

// toxiAPIOf returns the API of c's toxiproxy, if c has one.
func toxiAPIOf(c cluster.Cluster) (toxiAPI, bool) {
	h, ok := c.(proxyAPIHolder)
	if !ok || h.ProxyAPI() == "" {
		return toxiAPI{}, false
	}
	return newToxiAPI(h.ProxyAPI()), true
}

// links lists the proxies whose names follow the docker layout.
func (a toxiAPI) links(ctx context.Context) ([]link, error) {
	var proxies map[string]json.RawMessage
	if err := a.call(ctx, http.MethodGet, "/proxies", nil, http.StatusOK, &proxies); err != nil {
		return nil, fmt.Errorf("list proxies: %w", err)
	}
	var out []link
	for name := range proxies {
		if l, ok := parseLinkName(name); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// addKafkaToxic puts a Kafka toxic on a proxy.
func (a toxiAPI) addKafkaToxic(ctx context.Context, proxy string, spec kafkatoxic.Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if err := a.call(ctx, http.MethodPost, "/proxies/"+proxy+"/toxics", spec.Body(), http.StatusOK, nil); err != nil {
		return fmt.Errorf("add kafka toxic %s to %s: %w", spec.ToxicName(), proxy, err)
	}
	return nil
}

// kafkaToxicStatus reads a Kafka toxic's status (captures included).
func (a toxiAPI) kafkaToxicStatus(ctx context.Context, proxy, name string) (kafkatoxic.Status, error) {
	var raw json.RawMessage
	if err := a.call(ctx, http.MethodGet, "/proxies/"+proxy+"/toxics/"+name, nil, http.StatusOK, &raw); err != nil {
		return kafkatoxic.Status{}, fmt.Errorf("read kafka toxic %s on %s: %w", name, proxy, err)
	}
	_, st, err := kafkatoxic.ParseShown(raw)
	if err != nil {
		return kafkatoxic.Status{}, fmt.Errorf("read kafka toxic %s on %s: %w", name, proxy, err)
	}
	return st, nil
}

// releaseKafkaToxic lets go of whatever a Kafka toxic holds; from then on it
// only counts.
func (a toxiAPI) releaseKafkaToxic(ctx context.Context, proxy, name string) error {
	if err := a.call(ctx, http.MethodPatch, "/proxies/"+proxy+"/toxics/"+name, kafkatoxic.ReleaseBody(), http.StatusOK, nil); err != nil {
		return fmt.Errorf("release kafka toxic %s on %s: %w", name, proxy, err)
	}
	return nil
}

// removeToxic releases (a Kafka toxic) and removes a toxic; one that is not
// there is not an error.
func (a toxiAPI) removeToxic(ctx context.Context, proxy, name string) error {
	err := a.releaseKafkaToxic(ctx, proxy, name)
	if err != nil && !isStatus(err, http.StatusNotFound) {
		return err
	}
	err = a.call(ctx, http.MethodDelete, "/proxies/"+proxy+"/toxics/"+name, nil, http.StatusNoContent, nil)
	if err != nil && !isStatus(err, http.StatusNotFound) {
		return fmt.Errorf("remove toxic %s from %s: %w", name, proxy, err)
	}
	return nil
}

func isStatus(err error, status int) bool { return toxiproxyhttp.IsStatus(err, status) }

func (a toxiAPI) call(ctx context.Context, method, path string, body any, want int, out any) error {
	return a.c.Call(ctx, method, path, body, want, out)
}
