package clientcfg

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSCRAM(t *testing.T) {
	p := write(t, `# a comment
security.protocol=SASL_PLAINTEXT
sasl.mechanism = SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="alice" password="s3\"cret";
`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Protocol: SASLPlaintext, Mechanism: MechScramSHA512, Username: "alice", Password: `s3"cret`}
	if c != want {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	opts, err := c.Opts()
	if err != nil || len(opts) != 1 {
		t.Fatalf("opts %d, %v", len(opts), err)
	}
}

func TestLoadUnsupportedKeyNamesIt(t *testing.T) {
	p := write(t, "security.protocol=SSL\n\nssl.keystore.password=x\n")
	_, err := Load(p)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Key != "ssl.keystore.password" || !strings.Contains(err.Error(), p+":3") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadRejectsInconsistent(t *testing.T) {
	for name, text := range map[string]string{
		"sasl without mechanism": "security.protocol=SASL_SSL\n",
		"unknown mechanism":      "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n",
		"jks":                    "security.protocol=SSL\nssl.truststore.type=JKS\n",
		"missing CA file":        "security.protocol=SSL\nssl.truststore.location=/nonexistent.pem\n",
		"bad protocol":           "security.protocol=TLS\n",
	} {
		if _, err := Load(write(t, text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestZeroConfigHasNoOpts(t *testing.T) {
	opts, err := Config{}.Opts()
	if err != nil || len(opts) != 0 {
		t.Fatalf("got %d opts, %v", len(opts), err)
	}
}
