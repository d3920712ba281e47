// Package clientcfg is how every Kafka client of the suite reaches a cluster
// that wants more than a bootstrap address: TLS and SASL (PLAIN,
// SCRAM-SHA-256/512), read from a Java-properties file in the spirit of
// Kafka's --command-config, kept to what franz-go can do. The settings are
// plain data so that they cross into worker processes inside their config.
package clientcfg

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Security protocols (security.protocol).
const (
	Plaintext     = "PLAINTEXT"
	SSL           = "SSL"
	SASLPlaintext = "SASL_PLAINTEXT"
	SASLSSL       = "SASL_SSL"
)

// SASL mechanisms (sasl.mechanism).
const (
	MechPlain       = "PLAIN"
	MechScramSHA256 = "SCRAM-SHA-256"
	MechScramSHA512 = "SCRAM-SHA-512"
)

// Config is the connection settings of every client. The zero value is
// PLAINTEXT with no authentication (the docker and embedded backends).
type Config struct {
	// Protocol is security.protocol; "" means PLAINTEXT.
	Protocol string `json:"security_protocol,omitempty"`
	// Mechanism, Username and Password are the SASL settings (from
	// sasl.mechanism and sasl.jaas.config).
	Mechanism string `json:"sasl_mechanism,omitempty"`
	Username  string `json:"sasl_username,omitempty"`
	// Password never goes into a file: it crosses into worker processes
	// through EnvPassword (Export), so run directories hold no secret.
	Password string `json:"-"`
	// CAFile is a PEM bundle of the CAs to trust (ssl.truststore.location
	// with ssl.truststore.type=PEM); "" means the system's roots.
	CAFile string `json:"ssl_ca_file,omitempty"`
	// CertFile and KeyFile are the client's certificate and key, PEM (mutual
	// TLS: ssl.keystore.certificate.chain / ssl.keystore.key as file paths).
	CertFile string `json:"ssl_cert_file,omitempty"`
	KeyFile  string `json:"ssl_key_file,omitempty"`
	// SkipHostnameCheck: ssl.endpoint.identification.algorithm set empty.
	SkipHostnameCheck bool `json:"ssl_skip_hostname_check,omitempty"`
	// Secrets, when set, are the files' contents and the password held in
	// memory: a worker on another host gets them on its stdin, where the
	// files do not exist, and writes them nowhere.
	Secrets *Secrets `json:"-"`
}

// Secrets are a client's TLS files' contents and SASL password.
type Secrets struct {
	Password string `json:"sasl_password,omitempty"`
	CAPEM    []byte `json:"ca_pem,omitempty"`
	CertPEM  []byte `json:"cert_pem,omitempty"`
	KeyPEM   []byte `json:"key_pem,omitempty"`
}

// ReadSecrets reads c's files and password into Secrets, for a process
// that cannot read them where it runs.
func (c Config) ReadSecrets() (Secrets, error) {
	s := Secrets{Password: c.password()}
	for _, f := range []struct {
		path string
		into *[]byte
	}{{c.CAFile, &s.CAPEM}, {c.CertFile, &s.CertPEM}, {c.KeyFile, &s.KeyPEM}} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return Secrets{}, fmt.Errorf("read client TLS file: %w", err)
		}
		*f.into = b
	}
	return s, nil
}

// EnvPassword carries the SASL password into child processes.
const EnvPassword = "SHARECHAOS_SASL_PASSWORD"

// Export puts the password where child processes find it (they inherit the
// environment); call it once, in the orchestrator.
func (c Config) Export() error {
	if c.Password == "" {
		return nil
	}
	if err := os.Setenv(EnvPassword, c.Password); err != nil {
		return fmt.Errorf("export SASL password: %w", err)
	}
	return nil
}

// password is c's password, else the one its secrets carry, else the one
// the orchestrator exported.
func (c Config) password() string {
	if c.Password != "" {
		return c.Password
	}
	if c.Secrets != nil && c.Secrets.Password != "" {
		return c.Secrets.Password
	}
	return os.Getenv(EnvPassword)
}

// IsZero says whether c is plain PLAINTEXT.
func (c Config) IsZero() bool { return c == Config{} }

// TLS says whether the protocol uses TLS.
func (c Config) TLS() bool { return c.Protocol == SSL || c.Protocol == SASLSSL }

// SASL says whether the protocol authenticates with SASL.
func (c Config) SASL() bool { return c.Protocol == SASLPlaintext || c.Protocol == SASLSSL }

// Validate names the first inconsistent setting.
func (c Config) Validate() error {
	switch c.Protocol {
	case "", Plaintext, SSL, SASLPlaintext, SASLSSL:
	default:
		return fmt.Errorf("security.protocol %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", c.Protocol)
	}
	if c.SASL() {
		switch c.Mechanism {
		case MechPlain, MechScramSHA256, MechScramSHA512:
		case "":
			return fmt.Errorf("security.protocol %s needs sasl.mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", c.Protocol)
		default:
			return fmt.Errorf("sasl.mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (what franz-go offers here)", c.Mechanism)
		}
		if c.Username == "" {
			return fmt.Errorf("sasl.mechanism %s needs a username in sasl.jaas.config", c.Mechanism)
		}
	} else if c.Mechanism != "" {
		return fmt.Errorf("sasl.mechanism %s given but security.protocol %q does not use SASL", c.Mechanism, c.Protocol)
	}
	if !c.TLS() && (c.CAFile != "" || c.CertFile != "" || c.KeyFile != "") {
		return fmt.Errorf("ssl settings given but security.protocol %q does not use TLS", c.Protocol)
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return errors.New("ssl.keystore.certificate.chain and ssl.keystore.key go together")
	}
	return nil
}

// Opts are the kgo options that apply c; nil for the zero Config. It reads
// the PEM files each time, so a worker process reads them itself.
func (c Config) Opts() ([]kgo.Opt, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("check client config: %w", err)
	}
	var opts []kgo.Opt
	if c.TLS() {
		tc, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	return append(opts, c.saslOpts()...), nil
}

// saslOpts are the SASL options of c, none without SASL.
func (c Config) saslOpts() []kgo.Opt {
	if !c.SASL() {
		return nil
	}
	switch c.Mechanism {
	case MechPlain:
		return []kgo.Opt{kgo.SASL(plain.Auth{User: c.Username, Pass: c.password()}.AsMechanism())}
	case MechScramSHA256:
		return []kgo.Opt{kgo.SASL(scram.Auth{User: c.Username, Pass: c.password()}.AsSha256Mechanism())}
	case MechScramSHA512:
		return []kgo.Opt{kgo.SASL(scram.Auth{User: c.Username, Pass: c.password()}.AsSha512Mechanism())}
	}
	return nil
}

func (c Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := c.read(c.CAFile, func(s *Secrets) []byte { return s.CAPEM })
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("read CA file %s: no PEM certificate in it", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.CertFile != "" {
		certPEM, err := c.read(c.CertFile, func(s *Secrets) []byte { return s.CertPEM })
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		keyPEM, err := c.read(c.KeyFile, func(s *Secrets) []byte { return s.KeyPEM })
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if c.SkipHostnameCheck {
		// Kafka's empty ssl.endpoint.identification.algorithm skips the
		// hostname check only: the chain is still verified, here by hand,
		// because Go's switch turns off both.
		roots := tc.RootCAs
		tc.InsecureSkipVerify = true
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("verify broker certificate: none presented")
			}
			inter := x509.NewCertPool()
			for _, ic := range cs.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			if err != nil {
				return fmt.Errorf("verify broker certificate: %w", err)
			}
			return nil
		}
	}
	return tc, nil
}

// read is a TLS file's contents: from the secrets when they carry it, else
// from the file.
func (c Config) read(path string, held func(*Secrets) []byte) ([]byte, error) {
	if c.Secrets != nil {
		if b := held(c.Secrets); len(b) > 0 {
			return b, nil
		}
	}
	return os.ReadFile(path)
}
