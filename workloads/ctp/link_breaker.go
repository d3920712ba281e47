package ctp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
)

// linkBreaker is a kgo Dialer for one worker's producer that can cut that
// worker's links to one broker: existing connections are closed and new dials
// fail until it heals. It is how partial-produce-failure (ORACLE.md case 7)
// fails the produce to one output partition's leader inside one worker, where
// a proxy fault would hit every worker at once.
type linkBreaker struct {
	dialer net.Dialer

	mu     sync.Mutex
	broken string // the address cut off, "" when healthy
	conns  map[*trackedConn]struct{}
}

var errLinkCut = errors.New("link cut by the partial-produce-failure fault")

func newLinkBreaker() *linkBreaker {
	return &linkBreaker{conns: map[*trackedConn]struct{}{}}
}

// DialContext is kgo.Dialer's signature.
func (b *linkBreaker) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	b.mu.Lock()
	cut := b.broken == addr
	b.mu.Unlock()
	if cut {
		return nil, errLinkCut
	}
	c, err := b.dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, addr: addr, owner: b}
	b.mu.Lock()
	b.conns[tc] = struct{}{}
	b.mu.Unlock()
	return tc, nil
}

// cut closes every connection to addr and refuses new ones until heal.
func (b *linkBreaker) cut(addr string) {
	b.mu.Lock()
	b.broken = addr
	var victims []*trackedConn
	for c := range b.conns {
		if c.addr == addr {
			victims = append(victims, c)
		}
	}
	b.mu.Unlock()
	for _, c := range victims {
		_ = c.Close()
	}
}

func (b *linkBreaker) heal() {
	b.mu.Lock()
	b.broken = ""
	b.mu.Unlock()
}

type trackedConn struct {
	net.Conn
	addr  string
	owner *linkBreaker
	once  sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.owner.mu.Lock()
		delete(c.owner.conns, c)
		c.owner.mu.Unlock()
	})
	return c.Conn.Close()
}

// cutOutputLeader cuts this worker's producer links to the leader of output
// partition 0.
func (w *Worker) cutOutputLeader(ctx context.Context) error {
	adm := kadm.NewClient(w.producer)
	md, err := adm.Metadata(ctx, w.cfg.OutputTopic)
	if err != nil {
		return fmt.Errorf("cut output leader: %w", err)
	}
	td, ok := md.Topics[w.cfg.OutputTopic]
	if !ok {
		return fmt.Errorf("cut output leader: no metadata for %s", w.cfg.OutputTopic)
	}
	p, ok := td.Partitions[0]
	if !ok {
		return fmt.Errorf("cut output leader: no partition 0 of %s", w.cfg.OutputTopic)
	}
	for _, b := range md.Brokers {
		if b.NodeID == p.Leader { // the address as advertised: the proxy's
			w.breaker.cut(net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))))
			return nil
		}
	}
	return fmt.Errorf("cut output leader: leader %d of %s/0 not in metadata", p.Leader, w.cfg.OutputTopic)
}
