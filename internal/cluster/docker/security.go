package docker

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/pki"
)

// The brokers' client listener can be secured as a production cluster's is:
// SASL_SSL with SCRAM-SHA-512 and mutual TLS (the client presents a
// certificate the brokers' CA signed). Everything is made fresh per cluster:
// a CA, one broker certificate (for 127.0.0.1, where clients dial the
// proxies, and the brokers' names), a client certificate, and the password
// of the one SCRAM user, created when the storage is formatted (random, or
// $SHARECHAOS_SASL_PASSWORD when exported).
// The keys and the password never go into the run directory: the client's
// PEM files live in a private temporary directory removed with the cluster,
// the password crosses into workers through clientcfg.EnvPassword only.
// The inter-broker and controller listeners stay PLAINTEXT: they run on the
// brokers' internal networks, which nothing but toxiproxy reaches.

// Client listener security settings (Options.Security, --broker-security).
const (
	SecurityPlaintext = "plaintext"
	SecuritySASLSSL   = "sasl_ssl"
)

// Securities are the choices of Options.Security.
var Securities = []string{SecurityPlaintext, SecuritySASLSSL}

// scramUser is the one SCRAM user of a secured cluster.
const scramUser = "sharechaos"

// Where a secured broker's TLS files and SCRAM credential go in its
// container (our images' start.sh reads the credential file when it
// formats the storage).
const (
	brokerKeystorePath   = "/mnt/shared/config/tls/broker.pem"
	brokerTruststorePath = "/mnt/shared/config/tls/ca.pem"
	brokerScramPath      = "/mnt/shared/config/scram-credentials"
)

// clientSecurity is a secured cluster's material: what the brokers get and
// what the clients use.
type clientSecurity struct {
	dir    string // the client's PEM files; removed by remove
	config clientcfg.Config
	opts   []kgo.Opt
	// Broker side: the PEM keystore (key, then certificate chain), the CA,
	// and the SCRAM credential as kafka-storage's --add-scram takes it.
	keystore, truststore []byte
	scram                string
}

// newClientSecurity makes the material for a cluster of brokers brokers,
// the client's files in dir ("": a private temporary directory, removed
// with the cluster; a standalone cluster's lie in its own directory, which
// cluster down clears).
func newClientSecurity(brokers int, dir string) (*clientSecurity, error) {
	ca, err := pki.NewCA("sharechaos test CA")
	if err != nil {
		return nil, err
	}
	names := []string{"localhost", proxyAlias}
	for n := 1; n <= brokers; n++ {
		names = append(names, brokerAlias(n))
	}
	broker, err := ca.Issue("sharechaos-broker", names, []net.IP{net.ParseIP("127.0.0.1")}, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, err
	}
	client, err := ca.Issue(scramUser, nil, nil, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return nil, err
	}
	// A password the user exported is taken (CI checks that it appears in
	// no report); otherwise a random one.
	password := os.Getenv(clientcfg.EnvPassword)
	if password == "" {
		pw := make([]byte, 18)
		if _, err := rand.Read(pw); err != nil {
			return nil, err
		}
		password = hex.EncodeToString(pw)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sharechaos-tls-"); err != nil {
			return nil, fmt.Errorf("client TLS files: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("client TLS files: %w", err)
	}
	s := &clientSecurity{dir: dir, keystore: append(broker.KeyPEM, broker.ChainPEM...), truststore: ca.PEM}
	files := map[string][]byte{"ca.pem": ca.PEM, "client.pem": client.CertPEM, "client-key.pem": client.KeyPEM}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			s.remove()
			return nil, fmt.Errorf("client TLS files: %w", err)
		}
	}
	s.scram = fmt.Sprintf("SCRAM-SHA-512=[name=%s,password=%s]", scramUser, password)
	s.config = clientcfg.Config{Protocol: clientcfg.SASLSSL, Mechanism: clientcfg.MechScramSHA512,
		Username: scramUser, Password: password, CAFile: filepath.Join(dir, "ca.pem"),
		CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client-key.pem")}
	if s.opts, err = s.config.Opts(); err != nil {
		s.remove()
		return nil, err
	}
	return s, nil
}

// clientProperties is the client settings as the properties file
// --client-config reads (Kafka's names), password included: a standalone
// cluster's client.properties, for runs of the external backend against it.
func (s *clientSecurity) clientProperties() string {
	c := s.config
	return fmt.Sprintf(`# The client settings of this secured standalone cluster (sharechaos cluster up
# --broker-security sasl_ssl), for --client-config. It holds the SCRAM password:
# keep it to yourself; cluster down removes it.
security.protocol=%s
sasl.mechanism=%s
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";
ssl.truststore.type=PEM
ssl.truststore.location=%s
ssl.keystore.type=PEM
ssl.keystore.certificate.chain=%s
ssl.keystore.key=%s
`, c.Protocol, c.Mechanism, c.Username, c.Password, c.CAFile, c.CertFile, c.KeyFile)
}

// remove deletes the client's files.
func (s *clientSecurity) remove() {
	if s != nil {
		_ = os.RemoveAll(s.dir)
	}
}

// brokerConfigs are the client listener's settings on every broker.
func (s *clientSecurity) brokerConfigs() map[string]string {
	return map[string]string{
		"listener.security.protocol.map":                      "CLIENT:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"listener.name.client.sasl.enabled.mechanisms":        clientcfg.MechScramSHA512,
		"listener.name.client.scram-sha-512.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required;",
		"listener.name.client.ssl.client.auth":                "required",
		"listener.name.client.ssl.keystore.type":              "PEM",
		"listener.name.client.ssl.keystore.location":          brokerKeystorePath,
		"listener.name.client.ssl.truststore.type":            "PEM",
		"listener.name.client.ssl.truststore.location":        brokerTruststorePath,
	}
}

// ClientConfig is the clients' settings (the zero Config on a PLAINTEXT
// cluster).
func (c *Cluster) ClientConfig() clientcfg.Config {
	if c.security == nil {
		return clientcfg.Config{}
	}
	return c.security.config
}

// ClientOpts is the same as kgo options.
func (c *Cluster) ClientOpts() []kgo.Opt {
	if c.security == nil {
		return nil
	}
	return c.security.opts
}

var _ cluster.Clients = (*Cluster)(nil)
