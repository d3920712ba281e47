package clientcfg

import "strings"

// Describe names c's settings for an error message, the password left out:
// a refused connection should say with what it was tried.
func (c Config) Describe() string {
	p := c.Protocol
	if p == "" {
		p = Plaintext
	}
	parts := []string{"security.protocol " + p}
	if c.SASL() {
		parts = append(parts, "sasl.mechanism "+c.Mechanism+" as user "+c.Username)
	}
	if c.TLS() {
		ca := "the system's roots"
		if c.CAFile != "" {
			ca = c.CAFile
		}
		parts = append(parts, "ssl.truststore.location "+ca)
		if c.CertFile != "" {
			parts = append(parts, "client certificate "+c.CertFile)
		}
	}
	return strings.Join(parts, ", ")
}
