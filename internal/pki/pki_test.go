package pki

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
)

func TestIssuedCertificateVerifiesOnlyAgainstItsCA(t *testing.T) {
	ca, err := NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.Issue("broker", []string{"kafka-1"}, []net.IP{net.ParseIP("127.0.0.1")}, x509.ExtKeyUsageServerAuth)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(srv.ChainPEM, srv.KeyPEM)
	if err != nil {
		t.Fatalf("chain and key do not pair: %v", err)
	}
	if len(pair.Certificate) != 2 {
		t.Errorf("chain has %d certificates, want the leaf and the CA", len(pair.Certificate))
	}
	leaf, _ := x509.ParseCertificate(pair.Certificate[0])
	pool := func(pemBytes []byte) *x509.CertPool {
		p := x509.NewCertPool()
		p.AppendCertsFromPEM(pemBytes)
		return p
	}
	for _, host := range []string{"kafka-1", "127.0.0.1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(ca.PEM), DNSName: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(ca.PEM), DNSName: "kafka-2"}); err == nil {
		t.Error("verified for a name it was not issued for")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(other.PEM), DNSName: "kafka-1"}); err == nil {
		t.Error("verified against another CA")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(ca.PEM), DNSName: "kafka-1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("a server certificate verified for client authentication")
	}
}
