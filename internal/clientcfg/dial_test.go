package clientcfg

import (
	"crypto/x509"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/pki"
)

// TestOptsDialingTLS: kgo refuses a Dialer next to DialTLSConfig, which is
// why OptsDialing exists; its options build a client with a dialer of ours.
func TestOptsDialingTLS(t *testing.T) {
	c := Config{Protocol: SASLSSL, Mechanism: MechScramSHA512, Username: "u", Password: "p"}
	var d net.Dialer
	plain, err := c.Opts()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kgo.NewClient(append(plain, kgo.SeedBrokers("127.0.0.1:1"), kgo.Dialer(d.DialContext))...); err == nil || !strings.Contains(err.Error(), "Dialer") {
		t.Fatalf("kgo took a Dialer with DialTLSConfig (err %v): OptsDialing may no longer be needed", err)
	}
	opts, err := c.OptsDialing(d.DialContext)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
	if err != nil {
		t.Fatalf("client from OptsDialing: %v", err)
	}
	cl.Close()
	if _, err := (Config{Protocol: SSL, Mechanism: MechPlain}).OptsDialing(d.DialContext); err == nil {
		t.Fatal("OptsDialing took an inconsistent config")
	}
}

// Secrets held in memory stand in for the files: a client configured with
// paths that do not exist where it runs still gets its CA, its certificate
// and its password.
func TestSecretsStandInForTheFiles(t *testing.T) {
	ca, err := pki.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := ca.Issue("client", nil, nil, x509.ExtKeyUsageClientAuth)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Protocol: SASLSSL, Mechanism: MechScramSHA512, Username: "u", CAFile: "/nowhere/ca.pem",
		CertFile: "/nowhere/client.pem", KeyFile: "/nowhere/client-key.pem"}
	if _, err := c.Opts(); err == nil {
		t.Fatal("the files do not exist: want an error")
	}
	c.Secrets = &Secrets{Password: "pw", CAPEM: ca.PEM, CertPEM: cl.CertPEM, KeyPEM: cl.KeyPEM}
	if _, err := c.Opts(); err != nil {
		t.Fatalf("with the secrets: %v", err)
	}
	if c.password() != "pw" {
		t.Errorf("password %q, want the secrets'", c.password())
	}
	tc, err := c.tlsConfig()
	if err != nil || tc.RootCAs == nil || len(tc.Certificates) != 1 {
		t.Fatalf("tls config %+v, %v", tc, err)
	}
	// ReadSecrets reads what the files hold.
	dir := t.TempDir()
	files := Config{CAFile: dir + "/ca.pem"}
	if err := os.WriteFile(files.CAFile, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := files.ReadSecrets()
	if err != nil || string(s.CAPEM) != string(ca.PEM) {
		t.Errorf("ReadSecrets: %v", err)
	}
}
