package clientcfg

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"

	"github.com/twmb/franz-go/pkg/kgo"
)

// DialFunc is kgo.Dialer's signature.
type DialFunc func(ctx context.Context, network, host string) (net.Conn, error)

// OptsDialing are Opts with every connection dialed through dial (a fault's
// breakable dialer). kgo refuses a Dialer together with DialTLSConfig, so
// with TLS the handshake is done here, on dial's connection, with the same
// TLS settings and, as kgo does, the dialed host as the server name.
func (c Config) OptsDialing(dial DialFunc) ([]kgo.Opt, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("check client config: %w", err)
	}
	opts := c.saslOpts()
	if !c.TLS() {
		return append(opts, kgo.Dialer(dial)), nil
	}
	tc, err := c.tlsConfig()
	if err != nil {
		return nil, err
	}
	return append(opts, kgo.Dialer(func(ctx context.Context, network, host string) (net.Conn, error) {
		conn, err := dial(ctx, network, host)
		if err != nil {
			return nil, err
		}
		cfg := tc.Clone()
		if cfg.ServerName == "" {
			server, _, err := net.SplitHostPort(host)
			if err != nil {
				conn.Close()
				return nil, fmt.Errorf("split host %s: %w", host, err)
			}
			cfg.ServerName = server
		}
		tconn := tls.Client(conn, cfg)
		if err := tconn.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("tls handshake with %s: %w", host, err)
		}
		return tconn, nil
	})), nil
}
