// Package pki makes the certificates of a secured test cluster: a CA made
// for one cluster (or one test) and the broker and client certificates it
// signs, as PEM, the form Kafka's PEM keystores and truststores and Go's
// crypto/tls both read. Nothing here is meant to outlive the cluster.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// validity is how long the certificates hold: a cluster lives for minutes
// to hours, and an hour's slack before now absorbs clock skew.
const validity = 7 * 24 * time.Hour

// CA is a self-signed certificate authority.
type CA struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
	// PEM is the CA's certificate (a truststore).
	PEM []byte
}

// NewCA makes a CA named name.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := template(name)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("make CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{key: key, cert: cert, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Issued is a key and the certificate the CA signed for it.
type Issued struct {
	// KeyPEM is the key, PKCS#8 and unencrypted (Kafka's PEM keystore takes
	// it so when ssl.key.password is unset).
	KeyPEM []byte
	// CertPEM is the certificate alone; ChainPEM the certificate then the CA's.
	CertPEM, ChainPEM []byte
}

// Issue signs a certificate for cn, valid for the names and addresses given,
// for usage (x509.ExtKeyUsageServerAuth for a broker, ClientAuth for a client).
func (ca *CA) Issue(cn string, names []string, ips []net.IP, usage x509.ExtKeyUsage) (Issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Issued{}, err
	}
	tmpl := template(cn)
	tmpl.DNSNames, tmpl.IPAddresses = names, ips
	tmpl.KeyUsage, tmpl.ExtKeyUsage = x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{usage}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return Issued{}, fmt.Errorf("issue certificate for %s: %w", cn, err)
	}
	p8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Issued{}, err
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return Issued{KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}), CertPEM: cert,
		ChainPEM: append(append([]byte(nil), cert...), ca.PEM...)}, nil
}

func template(cn string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	now := time.Now()
	return &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity)}
}
