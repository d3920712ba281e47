// Package netdelay delays packets on a host whose kernel has no netem qdisc
// (tc qdisc ... netem: "Specified qdisc kind is unknown"), so a latency
// fault can still act there: an iptables rule hands the packets to an
// NFQUEUE queue, and this process, bound to it, accepts each one after the
// delay plus or minus the jitter, as netem's delay would hold it. It runs
// as the netdelay role of the sharechaos binary on the host
// (`SHARECHAOS_ROLE=netdelay sharechaos --queue 7 --delay 100ms --jitter
// 20ms`, what the ssh hosts' latency hook starts under systemd), until
// SIGTERM. With the rule's --queue-bypass, packets pass undelayed whenever
// it is not running.
package netdelay

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// Role is the netdelay role's name (role.EnvVar).
const Role = "netdelay"

// Options are what to delay by.
type Options struct {
	Queue         uint16
	Delay, Jitter time.Duration
}

// maxQueued bounds the packets the kernel holds for us; beyond it the
// queue fails open (accepts undelayed).
const maxQueued = 65536

// Main is the role's entry point: flags, then Run until SIGTERM or SIGINT.
func Main(args []string) int {
	fs := flag.NewFlagSet(Role, flag.ContinueOnError)
	queue := fs.Uint("queue", 7, "the NFQUEUE queue number the iptables rule sends packets to")
	delay := fs.Duration("delay", 100*time.Millisecond, "how long each packet is held")
	jitter := fs.Duration("jitter", 0, "the hold varies uniformly by up to this much either way")
	if err := fs.Parse(args); err != nil {
		return 64
	}
	if *queue > 65535 || *delay < 0 || *jitter < 0 || *jitter > *delay {
		fmt.Fprintln(os.Stderr, "netdelay: want --queue 0..65535 and 0 <= --jitter <= --delay")
		return 64
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	o := Options{Queue: uint16(*queue), Delay: *delay, Jitter: *jitter}
	fmt.Fprintf(os.Stderr, "netdelay: queue %d, delay %s ± %s\n", o.Queue, o.Delay, o.Jitter)
	held, err := Run(ctx, o)
	// The evidence that it acted: the heal hook prints this line.
	fmt.Fprintf(os.Stderr, "netdelay: held %d packets\n", held)
	if err != nil {
		fmt.Fprintln(os.Stderr, "netdelay:", err)
		return 1
	}
	return 0
}

// Run binds the queue and delays every packet it receives until ctx ends;
// then it accepts what arrives at once for one more delay, so that nothing
// the kernel still holds is dropped when the queue is unbound, and returns
// once every held packet was accepted, with how many it held.
func Run(ctx context.Context, o Options) (held int64, err error) {
	c, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		return 0, fmt.Errorf("open netfilter netlink socket (needs CAP_NET_ADMIN): %w", err)
	}
	defer c.Close()
	msgs, err := bindMessages(o.Queue, maxQueued)
	if err != nil {
		return 0, err
	}
	for _, m := range msgs {
		if _, err := c.Execute(m); err != nil {
			return 0, fmt.Errorf("bind NFQUEUE queue %d: %w", o.Queue, err)
		}
	}
	defer func() {
		if m, err := configMessage(o.Queue, commandAttr(cmdUnbind)); err == nil {
			_, _ = c.Execute(m)
		}
	}()
	// The jitter's draws are seeded by the settings, so the same fault
	// draws the same sequence of holds.
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d", o.Queue, o.Delay, o.Jitter)
	rng := rand.New(rand.NewPCG(h.Sum64(), 0))
	var (
		pending sync.WaitGroup
		sendMu  sync.Mutex
		sendErr error
	)
	accept := func(id uint32) {
		m, err := verdictMessage(o.Queue, id)
		if err == nil {
			sendMu.Lock()
			_, err = c.Send(m)
			sendMu.Unlock()
		}
		if err != nil {
			sendMu.Lock()
			sendErr = errors.Join(sendErr, err)
			sendMu.Unlock()
		}
	}
	var draining time.Time
	for {
		if draining.IsZero() && ctx.Err() != nil {
			draining = time.Now().Add(o.Delay + o.Jitter)
		}
		if !draining.IsZero() && time.Now().After(draining) {
			break
		}
		// Wake up to notice ctx at least every 200 ms.
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		in, err := c.Receive()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			pending.Wait()
			return held, fmt.Errorf("receive from NFQUEUE queue %d: %w", o.Queue, err)
		}
		for _, m := range in {
			id, err := packetID(m)
			if err != nil {
				continue
			}
			if !draining.IsZero() {
				accept(id)
				continue
			}
			hold := o.Delay
			if o.Jitter > 0 {
				hold += time.Duration(rng.Int64N(int64(2*o.Jitter)+1)) - o.Jitter
			}
			held++
			pending.Add(1)
			time.AfterFunc(hold, func() { defer pending.Done(); accept(id) })
		}
	}
	pending.Wait()
	sendMu.Lock()
	defer sendMu.Unlock()
	if sendErr != nil {
		return held, fmt.Errorf("send verdicts: %w", sendErr)
	}
	return held, nil
}
