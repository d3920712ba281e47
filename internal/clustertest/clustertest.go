// Package clustertest holds the helpers the packages' tests share when they
// talk to a real cluster (kfake or Kafka in containers): a client closed with
// the test, a bounded context. Test support only: nothing outside _test.go
// files imports it.
package clustertest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Client is a franz-go client of seeds, closed when the test ends.
func Client(t testing.TB, seeds []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...)...)
	if err != nil {
		t.Fatalf("new client of %v: %v", seeds, err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Context is a context that ends after d or with the test.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
