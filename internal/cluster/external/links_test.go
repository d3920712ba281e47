package external

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/clientcfg"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/toxiproxyhttp"
)

func TestLinkOfFollowsTheDockerNames(t *testing.T) {
	for name, want := range map[string]cluster.Link{
		"client-1":        {Name: "client-1", Kind: cluster.LinkClient, To: 1},
		"client-12":       {Name: "client-12", Kind: cluster.LinkClient, To: 12},
		"client-0":        {Name: "client-0", Kind: cluster.LinkClient, To: 0},
		"internal-1-2":    {Name: "internal-1-2", Kind: cluster.LinkInternal, From: 1, To: 2},
		"internal-3-3":    {Name: "internal-3-3", Kind: cluster.LinkInternal, From: 3, To: 3},
		"controller-2-10": {Name: "controller-2-10", Kind: cluster.LinkController, From: 2, To: 10},
	} {
		got, ok := linkOf(name)
		if !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", name, got, ok, want)
		}
	}
	for _, name := range []string{"", "client", "client-", "client-x", "client-01", "client--1", "client-1-2",
		"internal-1", "internal-1-2-3", "controller-a-b", "kafka-1", "broker-0", "Client-1", "client-99999999999"} {
		if l, ok := linkOf(name); ok {
			t.Errorf("%q: mapped to %+v, want left alone", name, l)
		}
	}
}

func TestLinksOfSortsAsTheDockerBackend(t *testing.T) {
	ps := map[string]toxiproxyhttp.Proxy{}
	for _, n := range []string{"controller-2-1", "internal-2-1", "client-2", "other", "internal-1-2", "client-1", "controller-1-2"} {
		ps[n] = toxiproxyhttp.Proxy{Name: n}
	}
	var got []string
	for _, l := range linksOf(ps) {
		got = append(got, l.Name)
	}
	want := []string{"client-1", "client-2", "internal-1-2", "internal-2-1", "controller-1-2", "controller-2-1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestKafkaToxicLacksNamesTheAddressAndWhatIsMissing(t *testing.T) {
	proxies := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/proxies" {
			_ = json.NewEncoder(w).Encode(map[string]toxiproxyhttp.Proxy{
				"client-1":     {Name: "client-1", Listen: "0.0.0.0:19001", Upstream: "kafka-1:9092"},
				"internal-1-2": {Name: "internal-1-2"},
			})
			return
		}
		// A toxiproxy without the Kafka toxic refuses its type.
		http.Error(w, `{"error":"Bad toxic type: kafka","status":400}`, http.StatusBadRequest)
	}))
	defer proxies.Close()

	for name, tc := range map[string]struct {
		hooks  string
		nodes  []cluster.NodeID
		client clientcfg.Config
		want   []string
	}{
		"no toxiproxy":  {hooks: "hooks: {}\n", want: []string{"names no toxiproxy", "hooks.yaml"}},
		"not answering": {hooks: "toxiproxy: http://127.0.0.1:1\nhooks: {}\n", nodes: []cluster.NodeID{1}, want: []string{"http://127.0.0.1:1", "does not answer"}},
		"no client proxy": {hooks: "toxiproxy: " + proxies.URL + "\nhooks: {}\n", nodes: []cluster.NodeID{1, 2, 3},
			want: []string{proxies.URL, "no proxy client-2, client-3", "client-1, internal-1-2"}},
		"no kafka toxic": {hooks: "toxiproxy: " + proxies.URL + "\nhooks: {}\n", nodes: []cluster.NodeID{1},
			want: []string{proxies.URL, "Kafka capture toxic", "client-1", "Bad toxic type"}},
		"tls": {hooks: "toxiproxy: " + proxies.URL + "\nhooks: {}\n", nodes: []cluster.NodeID{1},
			client: clientcfg.Config{Protocol: clientcfg.SASLSSL}, want: []string{proxies.URL, "SASL_SSL", "TLS"}},
	} {
		t.Run(name, func(t *testing.T) {
			c := testCluster(t, tc.hooks, tc.client, tc.nodes)
			why := c.Lacks(cluster.CapKafkaToxic)
			t.Logf("reason: %s", why)
			for _, w := range append(tc.want, "Kafka-protocol toxic") {
				if !strings.Contains(why, w) {
					t.Errorf("reason %q does not say %q", why, w)
				}
			}
			if again := c.Lacks(cluster.CapKafkaToxic); again != why {
				t.Errorf("asked again: %q, first %q", again, why)
			}
			if c.toxi.usable.Load() {
				t.Error("usable")
			}
		})
	}
}

// TestProbeTellsThroughFromBypassed runs a real toxiproxy (in process, with
// the Kafka toxic) in front of a kfake broker: when the address the
// metadata advertises is the proxy's, the links are usable; when it is the
// broker's own (the bootstrap bypasses the toxiproxy), they are not, and
// the reason says so. Either way the probe leaves no toxic behind.
func TestProbeTellsThroughFromBypassed(t *testing.T) {
	kf, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer kf.Close()
	broker := kf.ListenAddrs()[0]
	api := startToxiproxy(t)
	listen := addProxy(t, api, "client-0", broker)

	for name, tc := range map[string]struct {
		advertised string
		lacks      []string
	}{
		"through":  {advertised: listen},
		"bypassed": {advertised: broker, lacks: []string{"does not pass through the proxy client-0", broker, listen, "bypasses"}},
	} {
		t.Run(name, func(t *testing.T) {
			c := testCluster(t, "toxiproxy: "+api+"\nhooks: {}\n", clientcfg.Config{}, []cluster.NodeID{0})
			host, port, _ := net.SplitHostPort(tc.advertised)
			p, _ := strconv.Atoi(port)
			b := c.where[0]
			b.Host, b.Port = host, int32(p)
			c.where[0] = b
			why := c.Lacks(cluster.CapKafkaToxic)
			t.Logf("reason: %q", why)
			if tc.lacks == nil && why != "" {
				t.Fatalf("lacks: %s", why)
			}
			for _, w := range tc.lacks {
				if !strings.Contains(why, w) {
					t.Errorf("reason %q does not say %q", why, w)
				}
			}
			if tc.lacks == nil {
				if ls := c.Links(); len(ls) != 1 || ls[0].Name != "client-0" || c.ProxyAPI() != api {
					t.Errorf("links %+v at %s", ls, c.ProxyAPI())
				}
			}
			if left := toxicsOn(t, api, "client-0"); len(left) != 0 {
				t.Errorf("the probe left %v", left)
			}
		})
	}
}

// TestHealRemovesTheKafkaToxicsFaultsLeft: at the end of a cell only that
// cell's Kafka toxics go (others may be in use beside it), at the end of the
// run every Kafka toxic of the suite; nobody else's toxic is touched.
func TestHealRemovesTheKafkaToxicsFaultsLeft(t *testing.T) {
	api := startToxiproxy(t)
	addProxy(t, api, "client-1", "127.0.0.1:1")
	addProxy(t, api, "internal-1-2", "127.0.0.1:1")
	tp := toxiproxyhttp.New(api)
	ctx := context.Background()
	add := func(proxy string, body any) {
		t.Helper()
		if err := tp.Call(ctx, http.MethodPost, "/proxies/"+proxy+"/toxics", body, http.StatusOK, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("client-1", kafkatoxic.Spec{Name: "sc-late-endtxn-capture-sc-1a-c01", Action: kafkatoxic.ActionCapture, APIKey: 26}.Body())
	add("internal-1-2", kafkatoxic.Spec{Name: "sc-case4-hold-sc-1a-c02", Action: kafkatoxic.ActionHold, APIKey: 27}.Body())
	add("client-1", kafkatoxic.Spec{Name: "users-own", Action: kafkatoxic.ActionCapture, APIKey: 0}.Body())
	add("client-1", map[string]any{"name": "sc-latency-up", "type": "latency", "stream": "upstream", "toxicity": 1,
		"attributes": map[string]any{"latency": 1}})

	c := testCluster(t, "toxiproxy: "+api+"\nhooks: {}\n", clientcfg.Config{}, nil)
	if err := c.HealCell(ctx, "sc-1a-c01"); err != nil {
		t.Fatal(err)
	}
	if got := toxicsOn(t, api, "client-1"); !slices.Equal(got, []string{"sc-late-endtxn-capture-sc-1a-c01", "sc-latency-up", "users-own"}) {
		t.Errorf("links never checked: a heal must not touch the toxics; client-1 has %v", got)
	}
	if why := c.Lacks(cluster.CapKafkaToxic); why != "" {
		t.Fatal(why) // no brokers to probe: usable
	}
	if err := c.HealCell(ctx, "sc-1a-c01"); err != nil {
		t.Fatal(err)
	}
	if got := toxicsOn(t, api, "client-1"); !slices.Equal(got, []string{"sc-latency-up", "users-own"}) {
		t.Errorf("after the cell's heal client-1 has %v", got)
	}
	if got := toxicsOn(t, api, "internal-1-2"); !slices.Equal(got, []string{"sc-case4-hold-sc-1a-c02"}) {
		t.Errorf("another cell's toxic went: internal-1-2 has %v", got)
	}
	if err := c.HealEverything(ctx); err != nil {
		t.Fatal(err)
	}
	if got := toxicsOn(t, api, "internal-1-2"); len(got) != 0 {
		t.Errorf("after the run's heal internal-1-2 has %v", got)
	}
	if got := toxicsOn(t, api, "client-1"); !slices.Equal(got, []string{"sc-latency-up", "users-own"}) {
		t.Errorf("after the run's heal client-1 has %v", got)
	}
}

// testCluster is a Cluster as Start leaves it, without a broker to reach:
// nodes at 127.0.0.1:1 until a test says otherwise.
func testCluster(t *testing.T, hooks string, client clientcfg.Config, nodes []cluster.NodeID) *Cluster {
	t.Helper()
	c := &Cluster{o: Options{Hooks: hooksOf(t, hooks), Client: client}, nodes: nodes,
		killed: map[cluster.NodeID]bool{}, paused: map[cluster.NodeID]bool{}, where: map[cluster.NodeID]kadm.BrokerDetail{}}
	c.o.Log = slog.New(slog.DiscardHandler)
	for _, n := range nodes {
		c.where[n] = kadm.BrokerDetail{NodeID: int32(n), Host: "127.0.0.1", Port: 1}
	}
	return c
}

// startToxiproxy serves toxiproxy's HTTP API, with the Kafka toxic, in the
// test process.
func startToxiproxy(t *testing.T) string {
	t.Helper()
	kafkatoxic.Register()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	h := httptest.NewServer(srv.Routes())
	t.Cleanup(func() {
		_ = toxiproxyhttp.New(h.URL).Call(context.Background(), http.MethodPost, "/reset", nil, http.StatusNoContent, nil)
		for name := range mustProxies(t, h.URL) {
			_ = toxiproxyhttp.New(h.URL).Call(context.Background(), http.MethodDelete, "/proxies/"+name, nil, http.StatusNoContent, nil)
		}
		h.Close()
	})
	return h.URL
}

// addProxy creates a proxy on a free port and returns where it listens.
func addProxy(t *testing.T, api, name, upstream string) string {
	t.Helper()
	var p toxiproxyhttp.Proxy
	err := toxiproxyhttp.New(api).Call(context.Background(), http.MethodPost, "/proxies",
		map[string]any{"name": name, "listen": "127.0.0.1:0", "upstream": upstream, "enabled": true}, http.StatusCreated, &p)
	if err != nil {
		t.Fatal(err)
	}
	return p.Listen
}

func mustProxies(t *testing.T, api string) map[string]toxiproxyhttp.Proxy {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ps, err := toxiproxyhttp.New(api).Proxies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// toxicsOn lists the toxics on a proxy by name, sorted.
func toxicsOn(t *testing.T, api, proxy string) []string {
	t.Helper()
	var names []string
	for _, x := range mustProxies(t, api)[proxy].Toxics {
		names = append(names, x.Name)
	}
	slices.Sort(names)
	return names
}
