package external

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
)

// reachHint says what a failed first answer most likely means for the
// client settings it was tried with, so that a refused TLS or SASL
// connection names the setting to check instead of a bare "EOF".
func reachHint(err error, c clientcfg.Config) string {
	var unknownCA x509.UnknownAuthorityError
	var host x509.HostnameError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &host):
		return fmt.Sprintf("the broker's certificate does not name the address dialed (%s; ssl.endpoint.identification.algorithm= skips the hostname check)", c.Describe())
	case errors.As(err, &unknownCA) || errors.As(err, &verify):
		return fmt.Sprintf("the broker's certificate is not trusted: check ssl.truststore.location (%s)", c.Describe())
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return fmt.Sprintf("the broker refused the SASL authentication: check the username and password in sasl.jaas.config (%s)", c.Describe())
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Sprintf("the broker does not enable this SASL mechanism (%s)", c.Describe())
	case c.SASL() && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return fmt.Sprintf("the broker closed the connection during SASL authentication: a wrong username or password in sasl.jaas.config, or a mechanism or security.protocol the listener does not use (%s)", c.Describe())
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the broker closed the connection: does the listener want TLS or SASL (%s)?", c.Describe())
	}
	return ""
}
