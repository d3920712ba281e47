package embedded

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// checkMetadata asks the cluster, through the proxies, for its brokers and
// returns an error unless it names exactly one broker per proxy, node i at
// proxies[i]: a broker advertised at its own address would let clients bypass
// every network fault.
func checkMetadata(ctx context.Context, cl *kgo.Client, proxies []string) error {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{} // none; nil would mean all
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("request metadata: %w", err)
	}
	if len(resp.Brokers) != len(proxies) {
		return fmt.Errorf("metadata lists %d brokers, want %d", len(resp.Brokers), len(proxies))
	}
	for _, b := range resp.Brokers {
		addr := net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		if b.NodeID < 0 || int(b.NodeID) >= len(proxies) {
			return fmt.Errorf("metadata lists unexpected node %d at %s", b.NodeID, addr)
		}
		if want := proxies[b.NodeID]; addr != want {
			return fmt.Errorf("metadata lists node %d at %s, want its proxy %s", b.NodeID, addr, want)
		}
	}
	return nil
}
