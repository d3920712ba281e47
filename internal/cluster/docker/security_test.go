package docker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
)

func TestClientSecurityMaterialVerifies(t *testing.T) {
	s, err := newClientSecurity(3, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := s.dir
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(s.truststore) {
		t.Fatal("truststore holds no CA")
	}
	// The brokers' certificate, from their PEM keystore (key, then chain),
	// must verify for where clients dial (127.0.0.1) and the brokers' names.
	pair, err := tls.X509KeyPair(s.keystore, s.keystore)
	if err != nil {
		t.Fatalf("broker keystore is not a key and a certificate: %v", err)
	}
	leaf, _ := x509.ParseCertificate(pair.Certificate[0])
	for _, host := range []string{"127.0.0.1", "kafka-3", "toxiproxy"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("broker certificate for %s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "kafka-4"}); err == nil {
		t.Errorf("broker certificate verified for kafka-4, a broker the cluster does not have")
	}
	// The client's certificate is for client authentication, signed by the CA.
	cp, err := tls.LoadX509KeyPair(s.config.CertFile, s.config.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := x509.ParseCertificate(cp.Certificate[0])
	if _, err := cl.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	if err := s.config.Validate(); err != nil || !s.config.TLS() || !s.config.SASL() {
		t.Errorf("client config %+v: %v", s.config, err)
	}
	if !strings.Contains(s.scram, "name=sharechaos,password="+s.config.Password+"]") || len(s.config.Password) < 8 {
		t.Errorf("SCRAM credential %q does not carry the clients' password", s.scram)
	}
	s.remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("client TLS files left behind in %s", dir)
	}
}

func TestSecuredServerPropertiesSecureTheClientListenerOnly(t *testing.T) {
	s := &clientSecurity{}
	props := serverProperties(brokerWiring{node: 1, brokers: 3, clientAddr: "127.0.0.1:1", security: s.brokerConfigs()},
		map[string]string{"listener.security.protocol.map": "CLIENT:PLAINTEXT"})
	for _, want := range []string{
		"listener.security.protocol.map=CLIENT:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT\n",
		"listener.name.client.ssl.client.auth=required\n",
		"listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512\n",
		"listener.name.client.ssl.keystore.location=" + brokerKeystorePath + "\n",
	} {
		if !strings.Contains(props, want) {
			t.Errorf("server.properties lacks %q", want)
		}
	}
	plain := serverProperties(brokerWiring{node: 1, brokers: 3, clientAddr: "127.0.0.1:1"}, nil)
	if !strings.Contains(plain, "CLIENT:PLAINTEXT,") || strings.Contains(plain, "ssl") {
		t.Errorf("a plaintext cluster got TLS settings:\n%s", plain)
	}
}

func TestSecurityOptionChecked(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Security: "tls"}, `broker security "tls"`},
		{Options{Security: SecuritySASLSSL, KafkaImage: "apache/kafka:4.4.0"}, "needs one of our Kafka images"},
	} {
		if _, err := tc.o.withDefaults(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: want an error with %q, got %v", tc.o, tc.want, err)
		}
	}
	o, err := Options{Security: SecuritySASLSSL, KafkaImage: "sharechaos/kafka-kip1289:4.3.1"}.withDefaults()
	if err != nil || o.Security != SecuritySASLSSL {
		t.Errorf("our patched image with sasl_ssl: %v", err)
	}
}

// TestSecuredClientListener: a cluster started with SASL_SSL and mutual TLS
// serves the suite's clients (Start itself consumed through a share group
// with them), and refuses a client that skips any part of it: no TLS, TLS
// without a client certificate, a wrong password. Its client files go with it.
func TestSecuredClientListener(t *testing.T) {
	c := startCluster(t, Options{Brokers: 1, Security: SecuritySASLSSL})
	cfg := c.ClientConfig()
	if cfg.Protocol != clientcfg.SASLSSL || cfg.CertFile == "" {
		t.Fatalf("client config %s: want SASL_SSL with a client certificate", cfg.Describe())
	}
	ping := func(opts ...kgo.Opt) error {
		cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(c.Bootstrap()...), kgo.DialTimeout(3*time.Second), kgo.RequestRetries(0))...)
		if err != nil {
			return err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		return cl.Ping(ctx)
	}
	if err := ping(c.ClientOpts()...); err != nil {
		t.Fatalf("the suite's own client: %v", err)
	}
	noCert := cfg
	noCert.CertFile, noCert.KeyFile = "", ""
	wrongPassword := cfg
	wrongPassword.Password = "not-" + cfg.Password
	for name, bad := range map[string]clientcfg.Config{"no TLS": {}, "no client certificate": noCert, "a wrong password": wrongPassword} {
		opts, err := bad.Opts()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := ping(opts...); err == nil {
			t.Errorf("a client with %s was served", name)
		}
	}
	dir := filepath.Dir(cfg.CAFile)
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("client TLS files left in %s after Close", dir)
	}
}

// A standalone cluster's client.properties is what --client-config reads:
// loading it gives back the clients' settings, password included.
func TestClientPropertiesLoadAsTheClientConfig(t *testing.T) {
	dir := t.TempDir()
	s, err := newClientSecurity(3, filepath.Join(dir, TLSDir))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ClientConfigFile)
	if err := os.WriteFile(path, []byte(s.clientProperties()), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := clientcfg.Load(path)
	if err != nil {
		t.Fatalf("--client-config would refuse it: %v", err)
	}
	if got != s.config {
		t.Errorf("loaded %+v, want %+v", got, s.config)
	}
	if filepath.Dir(s.config.CAFile) != filepath.Join(dir, TLSDir) {
		t.Errorf("client files in %s, want the cluster's %s", filepath.Dir(s.config.CAFile), TLSDir)
	}
}
