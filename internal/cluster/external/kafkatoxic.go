package external

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/toxiproxyhttp"
)

// The Kafka toxic (faults/kafkatoxic: its spec and JSON, a leaf package) as
// the probe and the heals use it.
const (
	apiVersionsKey = 18
	// probeCaptures is enough for the probe's frame among the ApiVersions
	// of other clients that connect meanwhile.
	probeCaptures = 64
	// probePrefix starts the probe toxics' names (and so the probe
	// clients' ids); every toxic the suite adds starts with suitePrefix.
	probePrefix = "sc-probe-"
	suitePrefix = "sc-"
)

// Bounds of the probe of one client link.
const (
	probeReach   = 10 * time.Second
	probeSettle  = 2 * time.Second
	probeCleanup = 10 * time.Second
)

// probeCapture captures ApiVersions on the upstream under name.
func probeCapture(name string) kafkatoxic.ToxicBody {
	return kafkatoxic.Spec{Name: name, Action: kafkatoxic.ActionCapture, APIKey: apiVersionsKey, CaptureLimit: probeCaptures}.Body()
}

// probeClientLink checks that a client reaching node where the cluster's
// metadata says it listens passes through proxy p: the listen address
// cannot tell (docker publishes a proxy's port under another number), the
// traffic can. It puts a capture of ApiVersions on p, connects a client of
// its own, with a client id nobody else has, to the broker's advertised
// address (ApiVersions is the first request of every connection) and looks
// for that id among the frames the capture kept.
func (c *Cluster) probeClientLink(ctx context.Context, api toxiproxyhttp.Client, p toxiproxyhttp.Proxy, node cluster.NodeID) error {
	b := c.where[node]
	addr := net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
	name := probePrefix + strconv.Itoa(int(node)) + "-" + randomHex()
	if err := api.Call(ctx, http.MethodPost, "/proxies/"+p.Name+"/toxics", probeCapture(name), http.StatusOK, nil); err != nil {
		return fmt.Errorf("add a Kafka capture toxic to proxy %s (a toxiproxy with sharechaos's kafka toxic, as docker/images/toxiproxy builds it, is needed): %w", p.Name, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeCleanup)
		defer cancel()
		if err := api.RemoveToxic(rctx, p.Name, name, kafkatoxic.ReleaseBody()); err != nil {
			c.o.Log.Warn("remove probe toxic", "proxy", p.Name, "err", err)
		}
	}()

	cl, err := kgo.NewClient(append(slices.Clone(c.opts), kgo.SeedBrokers(addr), kgo.ClientID(name), kgo.DialTimeout(5*time.Second))...)
	if err != nil {
		return fmt.Errorf("probe broker %d at %s: %w", node, addr, err)
	}
	defer cl.Close()
	pctx, cancel := context.WithTimeout(ctx, probeReach)
	err = cl.Ping(pctx)
	cancel()
	if err != nil {
		return fmt.Errorf("probe broker %d at %s through proxy %s: %w", node, addr, p.Name, err)
	}

	// The toxic keeps a frame before it forwards it, so the answer came
	// after the capture; the wait is for a toxiproxy that is slower to
	// show it.
	deadline := time.Now().Add(probeSettle)
	for {
		seen, err := captured(ctx, api, p.Name, name)
		if err != nil {
			return err
		}
		if seen {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("a client connecting to broker %d at %s (where the cluster's metadata says it listens) does not pass through the proxy %s (listening on %s, forwarding to %s): the clients' traffic bypasses the toxiproxy",
				node, addr, p.Name, p.Listen, p.Upstream)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// captured says whether the probe toxic name kept a frame with its client
// id (the probe names its client after the toxic).
func captured(ctx context.Context, api toxiproxyhttp.Client, proxy, name string) (bool, error) {
	var shown json.RawMessage
	if err := api.Call(ctx, http.MethodGet, "/proxies/"+proxy+"/toxics/"+name, nil, http.StatusOK, &shown); err != nil {
		return false, fmt.Errorf("read probe toxic on proxy %s: %w", proxy, err)
	}
	_, status, err := kafkatoxic.ParseShown(shown)
	if err != nil {
		return false, fmt.Errorf("read probe toxic on proxy %s: %w", proxy, err)
	}
	for _, f := range status.Captures {
		if bytes.Contains(f.Frame, []byte(name)) {
			return true, nil
		}
	}
	return false, nil
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// removeKafkaToxics releases and removes every Kafka toxic of the suite
// whose name ours accepts. Faults remove their own toxics as they end; this
// is for one whose removal failed: a hold left on a link would hold every
// later cell's requests. It does nothing when the links were never found
// usable, since no fault could then have added one (and an unreachable
// toxiproxy must not fail every cell's heal).
func (c *Cluster) removeKafkaToxics(ctx context.Context, ours func(name string) bool) error {
	if !c.toxi.usable.Load() {
		return nil
	}
	api := toxiproxyhttp.New(c.o.Hooks.Toxiproxy)
	proxies, err := api.Proxies(ctx)
	if err != nil {
		return fmt.Errorf("remove Kafka toxics left by faults: %w", err)
	}
	var errs []error
	for _, p := range proxies {
		for _, t := range p.Toxics {
			if t.Type != kafkatoxic.TypeName || !strings.HasPrefix(t.Name, suitePrefix) || !ours(t.Name) {
				continue
			}
			err := api.RemoveToxic(ctx, p.Name, t.Name, kafkatoxic.ReleaseBody())
			c.o.Log.Warn("removed a Kafka toxic a fault left", "proxy", p.Name, "toxic", t.Name, "err", err)
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove Kafka toxics left by faults: %w", err)
	}
	return nil
}

// ofCell accepts the toxics of one cell: a fault names its Kafka toxics
// after the cell's topic prefix (late-endtxn, coordinator-crash-after-endtxn),
// and a probe's toxic is done with before any fault starts.
func ofCell(cell string) func(string) bool {
	return func(name string) bool {
		return strings.HasSuffix(name, "-"+cell) || strings.HasPrefix(name, probePrefix)
	}
}

// anyToxic accepts every toxic of the suite: at the end of the run no
// fault is running.
func anyToxic(string) bool { return true }
