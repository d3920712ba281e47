package docker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Start builds a cluster: it removes stale objects of dead runs, creates the
// networks, the toxiproxy container and its proxies, starts the brokers
// together (a KRaft quorum needs a majority of them), and returns once every
// broker is in the metadata and a share group has consumed a record.
//
// On error it returns the partial cluster with the error: Close it, which
// removes whatever was created (and keeps the logs when Options.LogDir is
// set).
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	setTestcontainersEnv()
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	eng, err := newEngine(ctx)
	if err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	c := &Cluster{opts: opts, eng: eng, clusterID: newClusterID(), images: map[int]string{}}
	if err := c.start(ctx); err != nil {
		return c, fmt.Errorf("start cluster %s: %w", opts.RunID, err)
	}
	c.startTime = time.Since(began)
	opts.Logger.Info("docker cluster ready", "run", opts.RunID, "brokers", opts.Brokers,
		"bootstrap", strings.Join(c.bootstrap, ","), "took", c.startTime.Round(time.Millisecond))
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	log := c.opts.Logger
	if removed, err := c.eng.removeStale(ctx); err != nil {
		log.Warn("could not remove every stale object", "err", err)
	} else if len(removed) > 0 {
		log.Info("removed stale objects of dead runs", "objects", strings.Join(removed, ", "))
	}
	for _, image := range []string{c.opts.KafkaImage, c.opts.ToxiproxyImage} {
		if !c.eng.imageExists(ctx, image) {
			return fmt.Errorf("find image %s: missing (build with: bash docker/build-images.sh)", image)
		}
	}

	// Broker networks are internal: a broker can reach toxiproxy and
	// nothing else, not even the outside world. The edge network only
	// carries toxiproxy's ports published on the host's loopback.
	edge := edgeNetworkName(c.opts.RunID)
	if err := c.eng.createNetwork(ctx, edge, c.labels("network", 0), false); err != nil {
		return err
	}
	c.edge = edge
	for n := 1; n <= c.opts.Brokers; n++ {
		name := networkName(c.opts.RunID, n)
		if err := c.eng.createNetwork(ctx, name, c.labels("network", n), true); err != nil {
			return err
		}
		c.networks = append(c.networks, name)
	}

	began := time.Now()
	if err := c.startProxy(ctx); err != nil {
		return err
	}
	log.Info("toxiproxy up", "proxies", len(c.links), "took", time.Since(began).Round(time.Millisecond))

	if c.opts.Security == SecuritySASLSSL {
		s, err := newClientSecurity(c.opts.Brokers, c.opts.SecurityDir)
		if err != nil {
			return fmt.Errorf("make the client listener's TLS and SCRAM material: %w", err)
		}
		c.security = s
		if err := c.security.config.Export(); err != nil {
			return err
		}
	}
	began = time.Now()
	if err := c.startBrokers(ctx); err != nil {
		return err
	}
	log.Info("brokers started", "brokers", c.opts.Brokers, "took", time.Since(began).Round(time.Millisecond))

	admin, err := kgo.NewClient(append(c.ClientOpts(),
		kgo.SeedBrokers(c.bootstrap...),
		kgo.DialTimeout(3*time.Second),
		// A broker can be down or cut off on purpose: fail a request
		// instead of retrying it for the client's default 30 s.
		kgo.RetryTimeout(10*time.Second),
		kgo.MetadataMinAge(250*time.Millisecond),
	)...)
	if err != nil {
		return fmt.Errorf("create admin client: %w", err)
	}
	c.admin, c.adm = admin, kadm.NewClient(admin)

	began = time.Now()
	if err := c.waitReady(ctx); err != nil {
		return err
	}
	log.Info("share group consumes", "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// startProxy starts the toxiproxy container on every broker network,
// publishes its API and client proxies on 127.0.0.1, and creates every proxy.
func (c *Cluster) startProxy(ctx context.Context) error {
	exposed := []string{strconv.Itoa(proxyAPIPort) + "/tcp"}
	for n := 1; n <= c.opts.Brokers; n++ {
		exposed = append(exposed, clientProxyPort(n), metricsProxyPort(n))
	}
	aliases := make(map[string][]string, len(c.networks))
	for _, name := range c.networks {
		aliases[name] = []string{proxyAlias}
	}
	loopback := netip.MustParseAddr("127.0.0.1")
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        c.opts.ToxiproxyImage,
			Name:         proxyContainerName(c.opts.RunID),
			Labels:       c.labels("toxiproxy", 0),
			Cmd:          []string{"-host=0.0.0.0", "-port=" + strconv.Itoa(proxyAPIPort)},
			ExposedPorts: exposed,
			// The first network is the one the ports are published from.
			Networks:       append([]string{c.edge}, c.networks...),
			NetworkAliases: aliases,
			// Publish on loopback only, at ports the engine picks.
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.PortBindings = network.PortMap{}
				for _, p := range exposed {
					hc.PortBindings[network.MustParsePort(p)] = []network.PortBinding{{HostIP: loopback}}
				}
			},
			// FROM scratch: no shell for an internal port check.
			WaitingFor: wait.ForHTTP("/version").WithPort(exposed[0]).WithStartupTimeout(time.Minute),
		},
		Started: true,
		Logger:  tcLogger{c.opts},
	}
	ctr, err := testcontainers.GenericContainer(ctx, req)
	if ctr != nil {
		c.proxy = ctr
	}
	if err != nil {
		return fmt.Errorf("start toxiproxy: %w", err)
	}

	api, err := ctr.MappedPort(ctx, exposed[0])
	if err != nil {
		return fmt.Errorf("find toxiproxy api port: %w", err)
	}
	c.proxyAPIURL = "http://" + net.JoinHostPort("127.0.0.1", api.Port())
	c.api = newProxyAPI(c.proxyAPIURL)
	for n := 1; n <= c.opts.Brokers; n++ {
		p, err := ctr.MappedPort(ctx, clientProxyPort(n))
		if err != nil {
			return fmt.Errorf("find client proxy port of broker %d: %w", n, err)
		}
		c.bootstrap = append(c.bootstrap, net.JoinHostPort("127.0.0.1", p.Port()))
		m, err := ctr.MappedPort(ctx, metricsProxyPort(n))
		if err != nil {
			return fmt.Errorf("find metrics proxy port of broker %d: %w", n, err)
		}
		c.metrics = append(c.metrics, "http://"+net.JoinHostPort("127.0.0.1", m.Port()))
	}

	info, err := ctr.Inspect(ctx)
	if err != nil {
		return fmt.Errorf("inspect toxiproxy: %w", err)
	}
	ips := make([]string, len(c.networks))
	for i, name := range c.networks {
		ep := info.NetworkSettings.Networks[name]
		if ep == nil || !ep.IPAddress.IsValid() {
			return fmt.Errorf("find toxiproxy's address on network %s: not attached", name)
		}
		ips[i] = ep.IPAddress.String()
	}
	c.links = links(c.opts.Brokers, ips)
	specs := make([]proxySpec, 0, len(c.links))
	for _, l := range c.links {
		specs = append(specs, proxySpec{Name: l.Name, Listen: l.Listen, Upstream: l.Upstream, Enabled: true})
	}
	specs = append(specs, metricsProxies(c.opts.Brokers)...)
	if err := c.api.populate(ctx, specs); err != nil {
		return fmt.Errorf("create proxies: %w", err)
	}
	return nil
}

// startBrokers starts every broker at once and waits until each says it
// started: a controller quorum needs a majority, so one at a time would
// never finish.
func (c *Cluster) startBrokers(ctx context.Context) error {
	c.brokers = make([]testcontainers.Container, c.opts.Brokers)
	errs := make([]error, c.opts.Brokers)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for n := 1; n <= c.opts.Brokers; n++ {
		wg.Go(func() {
			ctr, err := testcontainers.GenericContainer(ctx, c.brokerRequest(n))
			if ctr != nil {
				mu.Lock()
				c.brokers[n-1] = ctr
				mu.Unlock()
			}
			if err != nil {
				errs[n-1] = fmt.Errorf("start broker %d: %w%s", n, err, logTail(ctr, 15))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// logTail is the end of a container's log, to explain a failed start.
func logTail(ctr testcontainers.Container, lines int) string {
	if ctr == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return "; last log lines:\n\t" + strings.Join(all, "\n\t")
}

// brokerConfigPath is where both our image and apache/kafka read it.
const brokerConfigPath = "/mnt/shared/config/server.properties"

func (c *Cluster) brokerRequest(n int) testcontainers.GenericContainerRequest {
	w := brokerWiring{node: n, brokers: c.opts.Brokers, clientAddr: c.bootstrap[n-1]}
	files := []testcontainers.ContainerFile{}
	if s := c.security; s != nil {
		w.security = s.brokerConfigs()
		for path, b := range map[string][]byte{brokerKeystorePath: s.keystore, brokerTruststorePath: s.truststore, brokerScramPath: []byte(s.scram)} {
			files = append(files, testcontainers.ContainerFile{Reader: bytes.NewReader(b), ContainerFilePath: path, FileMode: 0o600})
		}
	}
	props := serverProperties(w, c.opts.BrokerConfigs)
	return testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:  c.brokerImage(n),
			Name:   brokerContainerName(c.opts.RunID, n),
			Labels: c.labels("kafka", n),
			Env: map[string]string{
				"CLUSTER_ID":      c.clusterID,
				"KAFKA_HEAP_OPTS": c.opts.BrokerHeap,
				"KAFKA_OPTS":      jitOpts[c.opts.BrokerJIT],
			},
			Networks:       []string{c.networks[n-1]},
			NetworkAliases: map[string][]string{c.networks[n-1]: {brokerAlias(n)}},
			Files: append(files, testcontainers.ContainerFile{
				Reader: strings.NewReader(props), ContainerFilePath: brokerConfigPath, FileMode: 0o644,
			}),
			// Nothing published: clients reach brokers only through
			// toxiproxy. The data lives on the broker's own volume
			// (volumes.go), which outlives a swap of its container.
			HostConfigModifier: func(hc *container.HostConfig) { c.mountData(hc, n) },
			// The Start context bounds the wait; this only lifts
			// testcontainers' 60 s default for a slow first start.
			WaitingFor: wait.ForLog("Kafka Server started").WithStartupTimeout(c.opts.StartTimeout),
		},
		Started: true,
		Logger:  tcLogger{c.opts},
	}
}

// newClusterID makes a KRaft cluster id: 16 random bytes, base64url without
// padding, like kafka-storage random-uuid.
func newClusterID() string {
	// Like Kafka's Uuid.randomUuid: an id starting with '-' would be read as
	// a flag by kafka-storage format (it failed 2 of 5 cluster starts).
	for {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		if id := base64.RawURLEncoding.EncodeToString(b); id[0] != '-' {
			return id
		}
	}
}
