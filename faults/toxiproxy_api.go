package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/toxiproxyhttp"
)

// toxiAPI speaks the toxiproxy HTTP API for the Kafka toxic (bounded calls:
// internal/toxiproxyhttp).
type toxiAPI struct{ c toxiproxyhttp.Client }

func newToxiAPI(base string) toxiAPI { return toxiAPI{c: toxiproxyhttp.New(base)} }

// toxiAPIOf returns the API of c's toxiproxy and its links, if c has them
// (cluster.Links: the docker backend, and the external one through its hooks
// file's toxiproxy; the embedded backend keeps its proxies in-process
// without an API).
func toxiAPIOf(c cluster.Cluster) (toxiAPI, []cluster.Link, bool) {
	l, ok := c.(cluster.Links)
	if !ok || l.ProxyAPI() == "" {
		return toxiAPI{}, nil, false
	}
	return newToxiAPI(l.ProxyAPI()), l.Links(), true
}

// clientLink is the link clients use to reach node.
func clientLink(links []cluster.Link, node cluster.NodeID) (cluster.Link, bool) {
	for _, l := range links {
		if l.Kind == cluster.LinkClient && l.To == node {
			return l, true
		}
	}
	return cluster.Link{}, false
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
	return a.c.RemoveToxic(ctx, proxy, name, kafkatoxic.ReleaseBody())
}

func (a toxiAPI) call(ctx context.Context, method, path string, body any, want int, out any) error {
	return a.c.Call(ctx, method, path, body, want, out)
}
