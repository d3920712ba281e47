package suites

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/pki"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// testPKI is a CA made for one test and a broker certificate it signed for
// 127.0.0.1, the CA written as the PEM truststore a Kafka user would name in
// ssl.truststore.location.
type testPKI struct {
	caFile string
	server tls.Certificate
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	ca, err := pki.NewCA("sharechaos test CA")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.Issue("kfake broker", []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)}, x509.ExtKeyUsageServerAuth)
	if err != nil {
		t.Fatal(err)
	}
	server, err := tls.X509KeyPair(srv.ChainPEM, srv.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ca.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return testPKI{caFile: caFile, server: server}
}

// startSASLSSLKfake starts a 3-broker kfake in the test process that serves
// only TLS and authenticates with SASL mechanism as user/pass, with the
// share-group settings the chaos timing needs (as the embedded backend sets).
func startSASLSSLKfake(t *testing.T, pki testPKI, mechanism, user, pass string) *kfake.Cluster {
	t.Helper()
	configs := embedded.DefaultBrokerConfigs(embedded.DefaultRecordLock)
	configs["group.share.session.timeout.ms"] = "6000"
	configs["group.share.heartbeat.interval.ms"] = "1000"
	c, err := kfake.NewCluster(kfake.NumBrokers(3),
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pki.server}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser(mechanism, user, pass),
		kfake.BrokerConfigs(configs))
	if err != nil {
		t.Fatalf("start kfake with TLS and SASL %s: %v", mechanism, err)
	}
	t.Cleanup(c.Close)
	return c
}

// writeClientConfig writes a --client-config file as a Kafka user would for
// a SASL_SSL cluster with a PEM truststore.
func writeClientConfig(t *testing.T, mechanism, user, pass, caFile string) string {
	t.Helper()
	module := "org.apache.kafka.common.security.scram.ScramLoginModule"
	if mechanism == clientcfg.MechPlain {
		module = "org.apache.kafka.common.security.plain.PlainLoginModule"
	}
	props := fmt.Sprintf(`# a SASL_SSL cluster, like Kafka's --command-config
security.protocol=SASL_SSL
sasl.mechanism=%s
sasl.jaas.config=%s required \
    username="%s" \
    password="%s";
ssl.truststore.type=PEM
ssl.truststore.location=%s
`, mechanism, module, user, pass, caFile)
	f := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(f, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// unsetPassword drops the SASL password a run exported for its workers, so
// that one subtest's password never leaks into the next.
func unsetPassword(t *testing.T) {
	t.Helper()
	prev, had := os.LookupEnv(clientcfg.EnvPassword)
	t.Cleanup(func() {
		if had {
			_ = os.Setenv(clientcfg.EnvPassword, prev)
		} else {
			_ = os.Unsetenv(clientcfg.EnvPassword)
		}
	})
	_ = os.Unsetenv(clientcfg.EnvPassword)
}

// TestExternalSASLSSL runs the steady cell through --backend external
// against a kfake that serves only TLS with SASL, once per mechanism, from a
// properties file a Kafka user would write: the admin, seeder, workers and
// read-back all reach it with the client config, the cell passes and the
// report names the cluster.
func TestExternalSASLSSL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a TLS+SASL kfake and worker processes; skipped with -short")
	}
	pki := newTestPKI(t)
	for _, mech := range []string{clientcfg.MechPlain, clientcfg.MechScramSHA256, clientcfg.MechScramSHA512} {
		t.Run(mech, func(t *testing.T) {
			unsetPassword(t)
			c := startSASLSSLKfake(t, pki, mech, "alice", "s3cret-"+mech)
			cfg := writeClientConfig(t, mech, "alice", "s3cret-"+mech, pki.caFile)
			bootstrap := strings.Join(c.ListenAddrs(), ",")
			scenarios := []string{"steady"}
			if mech == clientcfg.MechScramSHA512 {
				// The worker's breakable dialer carries TLS too: its
				// producer's link to an output leader is cut over TLS.
				scenarios = append(scenarios, "partial-produce-failure")
			}
			res := runMatrix(t, Options{Common: harness.Common{Backend: "external", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 11,
				Backends: harness.BackendFlags{External: harness.ExternalFlags{Bootstrap: bootstrap, ClientConfig: cfg}}},
				Scenarios: scenarios, Records: 200})
			if len(res.Runs) != len(scenarios) {
				t.Fatalf("cells: %d, want %d", len(res.Runs), len(scenarios))
			}
			for _, cell := range res.Runs {
				t.Logf("%s over SASL_SSL %s: %s input=%d processed=%d duplicated=%d lost=%d %s",
					cell.Name(), mech, cell.Verdict, cell.Input, cell.Processed, cell.Duplicated, cell.Lost, cell.Reason)
				if cell.Verdict != verdict.Pass || cell.Input != 200 {
					t.Errorf("%s: verdict %s input %d (%s), want PASS on 200 records", cell.Name(), cell.Verdict, cell.Input, cell.Reason)
				}
			}
			cl := res.Cluster
			if cl == nil || cl.Brokers != 3 || cl.KafkaVersion == "" || strings.Join(cl.Bootstrap, ",") != bootstrap {
				t.Fatalf("cluster section: %+v", cl)
			}
			t.Logf("cluster: kafka %s, brokers %v, bootstrap %v", cl.KafkaVersion, cl.BrokerIDs, cl.Bootstrap)
			b, err := os.ReadFile(filepath.Join(res.Dir, "result.json"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "s3cret") {
				t.Errorf("result.json holds the SASL password")
			}
		})
	}
}

// TestExternalSASLSSLRefused: a wrong password, or a CA the broker's
// certificate does not chain to, is a HARNESS-ERROR of the cluster naming
// the bootstrap and the problem, within a bounded time, before any cell runs.
func TestExternalSASLSSLRefused(t *testing.T) {
	pki := newTestPKI(t)
	other := newTestPKI(t)
	c := startSASLSSLKfake(t, pki, clientcfg.MechScramSHA256, "alice", "right")
	bootstrap := strings.Join(c.ListenAddrs(), ",")
	for _, tc := range []struct {
		name, pass, ca string
		want           []string
	}{
		{"wrong-password", "wrong", pki.caFile, []string{"authenticat", "SCRAM-SHA-256", "alice"}},
		{"untrusted-ca", "right", other.caFile, []string{"certificate", "ssl.truststore.location"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unsetPassword(t)
			cfg := writeClientConfig(t, clientcfg.MechScramSHA256, "alice", tc.pass, tc.ca)
			began := time.Now()
			res, err := Run(context.Background(), Options{Common: harness.Common{Backend: "external", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 1,
				Backends: harness.BackendFlags{External: harness.ExternalFlags{Bootstrap: bootstrap, ClientConfig: cfg}}, Out: filepath.Join(t.TempDir(), "run")},
				Scenarios: []string{"steady"}, Records: 10})
			took := time.Since(began)
			if err != nil {
				t.Fatalf("run: %v (want a HARNESS-ERROR cell, not an error)", err)
			}
			if len(res.Runs) != 1 {
				t.Fatalf("cells: %+v, want the one cluster cell", res.Runs)
			}
			cell := res.Runs[0]
			t.Logf("after %s: %s %s: %s", took.Round(time.Millisecond), cell.Scenario, cell.Verdict, cell.Reason)
			if cell.Scenario != "cluster" || cell.Verdict != verdict.HarnessError || res.ExitCode != verdict.ExitHarnessError {
				t.Errorf("cell %s %s exit %d, want the cluster cell HARNESS-ERROR, exit %d", cell.Scenario, cell.Verdict, res.ExitCode, verdict.ExitHarnessError)
			}
			for _, w := range append([]string{c.ListenAddrs()[0]}, tc.want...) {
				if !strings.Contains(cell.Reason, w) {
					t.Errorf("reason does not name %q: %s", w, cell.Reason)
				}
			}
			if took > 20*time.Second {
				t.Errorf("took %s to refuse, want within 20s", took)
			}
		})
	}
}
