package clientcfg

import (
	"net"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
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
