package shareconsumer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// coordinator finds and caches the group coordinator, the broker that owns
// share-group membership. Heartbeats go to it by node id rather than through
// kgo's coordinator routing so that a NOT_COORDINATOR answer is ours to act
// on: we forget the cached node and look it up again.
type coordinator struct {
	cl    *kgo.Client
	group string

	mu   sync.Mutex
	node int32 // -1: unknown
}

func newCoordinator(cl *kgo.Client, group string) *coordinator {
	return &coordinator{cl: cl, group: group, node: -1}
}

func (c *coordinator) get(ctx context.Context) (int32, error) {
	c.mu.Lock()
	node := c.node
	c.mu.Unlock()
	if node >= 0 {
		return node, nil
	}
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = 0 // group: share groups live in the group coordinator
	req.CoordinatorKey = c.group
	req.CoordinatorKeys = []string{c.group}
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return -1, fmt.Errorf("find coordinator of %s: %w", c.group, err)
	}
	code, node := resp.ErrorCode, resp.NodeID
	if len(resp.Coordinators) > 0 {
		code, node = resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID
	}
	if err := kerr.ErrorForCode(code); err != nil {
		return -1, fmt.Errorf("find coordinator of %s: %w", c.group, err)
	}
	if node < 0 {
		return -1, fmt.Errorf("find coordinator of %s: %w", c.group, kerr.CoordinatorNotAvailable)
	}
	c.mu.Lock()
	c.node = node
	c.mu.Unlock()
	return node, nil
}

// forget drops the cached coordinator after an answer or a failure that
// says it moved or is gone.
func (c *coordinator) forget() {
	c.mu.Lock()
	c.node = -1
	c.mu.Unlock()
}

// movedCoordinator reports errors after which the coordinator must be looked
// up again.
func movedCoordinator(err error) bool {
	return errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable)
}
