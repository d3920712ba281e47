package faults

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
	"github.com/sharechaos/sharechaos/internal/cluster"
)

// endTxnKey is the api key of EndTxn.
const endTxnKey int16 = 26

// Bounds of late-endtxn's steps.
const (
	captureWait = time.Minute
	newerWait   = 30 * time.Second
	replayLimit = 10 * time.Second
)

// lateEndTxn captures a worker's EndTxn(COMMIT) on the client link of its
// transaction coordinator, waits until a newer transaction of that producer
// began (the coordinator shows it Ongoing at a higher epoch, KIP-890's
// bump on every end) or, with epochs that do not move, until that newer
// transaction ended too, and then replays the old frame on a raw
// connection, as a late duplicate from the network would arrive. The
// broker must fence it by epoch: an accepted replay would end the newer
// transaction early. The broker's answer is in the fault-fired event; the
// cell's check is that nothing aborted becomes visible and nothing is
// duplicated.
func lateEndTxn(ctx context.Context, env Env) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	api, ls, _ := toxiAPIOf(env.Cluster)
	roles := env.Cluster.(cluster.Roles)

	ids := a.cellTxnIDs(ctx, env)
	txnID := ids[env.Rand.IntN(len(ids))]
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	coord, err := roles.Coordinator(cctx, cluster.CoordTransaction, txnID)
	cancel()
	if err != nil {
		return fmt.Errorf("find transaction coordinator of %s: %w", txnID, err)
	}
	cl, ok := clientLink(ls, coord)
	if !ok {
		return fmt.Errorf("capture EndTxn: no client link to broker %d", coord)
	}
	proxy := cl.Name
	// The cell runs beside others (ScopeCell): its capture has a name of its
	// own, and keeps enough frames that other cells' EndTxns on the same
	// link do not crowd out its own.
	capture := kafkatoxic.Spec{Name: "sc-late-endtxn-capture-" + env.Topology.Prefix, Action: kafkatoxic.ActionCapture,
		APIKey: endTxnKey, CaptureLimit: 1024}
	if err := api.addKafkaToxic(ctx, proxy, capture); err != nil {
		return err
	}
	removed := false
	remove := func() {
		if removed {
			return
		}
		removed = true
		rctx, cancel := healContext(ctx, 30*time.Second)
		defer cancel()
		_ = api.removeToxic(rctx, proxy, capture.ToxicName())
	}
	defer remove()

	caught, err := waitEndTxn(ctx, api, proxy, capture.ToxicName(), env.Topology.Prefix+"-w", captureWait, nil)
	if err != nil {
		return nil // the cell ended first, or no commit came through: not fired
	}
	newer, err := waitNewerTxn(ctx, a, api, proxy, capture.ToxicName(), caught)
	if err != nil {
		return nil
	}
	// The capture has done its work; heal before the replay, so the
	// replayed frame is not caught again.
	remove()
	healed(env, time.Now(), map[string]string{"action": "capture removed", "proxy": proxy})

	current, err := roles.Coordinator(ctx, cluster.CoordTransaction, caught.req.TransactionalID)
	if err != nil {
		return fmt.Errorf("find transaction coordinator of %s: %w", caught.req.TransactionalID, err)
	}
	addr, err := a.brokerAddr(ctx, current)
	if err != nil {
		return err
	}
	attrs := map[string]string{
		"action": "replayed a captured EndTxn on a raw connection", "transactional_id": caught.req.TransactionalID,
		"producer_id": strconv.FormatInt(caught.req.ProducerID, 10), "producer_epoch": strconv.Itoa(int(caught.req.ProducerEpoch)),
		"commit": strconv.FormatBool(caught.req.Commit), "endtxn_version": strconv.Itoa(int(caught.req.Version)),
		"captured_at": caught.at.UTC().Format(time.RFC3339Nano), "newer": newer,
		"node": strconv.Itoa(int(current)),
	}
	at, answers := replay(ctx, a, addr, caught)
	attrs["answer"] = answers[len(answers)-1]
	attrs["answers"] = strings.Join(answers, " | ")
	fired(env, PointAfterNewerTxn, at, attrs)
	return nil
}

// replayAttempts bounds the replays of one frame: an answer that decides
// nothing (CONCURRENT_TRANSACTIONS: the newer transaction was just ending)
// is followed by another replay while a newer transaction is open.
const replayAttempts = 3

// replay sends the captured frame to addr until the broker's answer
// decides (anything but CONCURRENT_TRANSACTIONS) or the attempts are used
// up. It returns when the first replay went out and every answer.
func replay(ctx context.Context, a *admin, addr string, caught caughtEndTxn) (time.Time, []string) {
	var first time.Time
	var answers []string
	for attempt := 1; attempt <= replayAttempts; attempt++ {
		if attempt > 1 && !waitOngoing(ctx, a, caught) {
			break
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replayLimit)
		at := time.Now()
		reply, err := kafkatoxic.Replay(rctx, addr, caught.frame)
		cancel()
		if attempt == 1 {
			first = at
		}
		if err != nil {
			answers = append(answers, "no answer: "+err.Error())
			break
		}
		answer, code := endTxnAnswer(reply)
		answers = append(answers, answer)
		if !errors.Is(code, kerr.ConcurrentTransactions) {
			break
		}
	}
	return first, answers
}

// waitOngoing waits (a little) until the captured producer has a newer
// transaction open.
func waitOngoing(ctx context.Context, a *admin, caught caughtEndTxn) bool {
	deadline := time.Now().Add(newerWait)
	for time.Now().Before(deadline) {
		if d, err := a.describeTxn(ctx, caught.req.TransactionalID); err == nil && d.State == "Ongoing" &&
			(d.ProducerID != caught.req.ProducerID || d.ProducerEpoch > caught.req.ProducerEpoch) {
			return true
		}
		if !sleepCtx(ctx, 20*time.Millisecond) {
			return false
		}
	}
	return false
}

// caughtEndTxn is one captured EndTxn frame and what it says.
type caughtEndTxn struct {
	frame []byte
	req   *kmsg.EndTxnRequest
	at    time.Time
}

// waitEndTxn waits until the capture holds an EndTxn(COMMIT) of a
// transactional id starting with prefix, other than the frame skip (nil:
// any), and returns the first.
func waitEndTxn(ctx context.Context, api toxiAPI, proxy, toxic, prefix string, limit time.Duration, after *caughtEndTxn) (caughtEndTxn, error) {
	deadline := time.Now().Add(limit)
	for {
		st, err := api.kafkaToxicStatus(ctx, proxy, toxic)
		if err != nil {
			return caughtEndTxn{}, err
		}
		for _, c := range st.Captures {
			req := kmsg.NewPtrEndTxnRequest()
			if _, err := kafkatoxic.DecodeRequest(c.Frame, req); err != nil {
				continue
			}
			if !req.Commit || !strings.HasPrefix(req.TransactionalID, prefix) {
				continue
			}
			if after != nil && (req.TransactionalID != after.req.TransactionalID || !c.At.After(after.at)) {
				continue
			}
			return caughtEndTxn{frame: c.Frame, req: req, at: c.At}, nil
		}
		if time.Now().After(deadline) {
			return caughtEndTxn{}, fmt.Errorf("wait for an EndTxn: none in %v", limit)
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return caughtEndTxn{}, ctx.Err()
		}
	}
}

// waitNewerTxn waits until a transaction of the captured producer newer
// than the captured one began, and says how that was seen.
func waitNewerTxn(ctx context.Context, a *admin, api toxiAPI, proxy, toxic string, caught caughtEndTxn) (string, error) {
	deadline := time.Now().Add(newerWait)
	for {
		d, err := a.describeTxn(ctx, caught.req.TransactionalID)
		if err == nil {
			switch {
			case d.ProducerID != caught.req.ProducerID:
				return fmt.Sprintf("producer id changed to %d (state %s)", d.ProducerID, d.State), nil
			case d.ProducerEpoch > caught.req.ProducerEpoch && d.State == "Ongoing":
				return fmt.Sprintf("newer transaction open at epoch %d", d.ProducerEpoch), nil
			}
		}
		// Epochs that do not move per transaction (no KIP-890 bump): a
		// later EndTxn of the same producer proves a newer transaction.
		if later, err := waitEndTxn(ctx, api, proxy, toxic, caught.req.TransactionalID, 0, &caught); err == nil {
			return fmt.Sprintf("newer transaction ended (EndTxn at epoch %d)", later.req.ProducerEpoch), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("wait for a newer transaction of %s: none in %v", caught.req.TransactionalID, newerWait)
		}
		if !sleepCtx(ctx, 20*time.Millisecond) {
			return "", ctx.Err()
		}
	}
}

// endTxnAnswer is the broker's answer to a replayed EndTxn in words, and
// its error.
func endTxnAnswer(reply kafkatoxic.Reply) (string, error) {
	resp, ok := reply.Response.(*kmsg.EndTxnResponse)
	if !ok {
		return fmt.Sprintf("undecodable response (%d bytes)", len(reply.Body)), nil
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return err.Error(), err
	}
	return "NONE (accepted)", nil
}

// PointAfterNewerTxn is where late-endtxn fires: its captured EndTxn
// replayed after a newer transaction of the same producer began.
const PointAfterNewerTxn = "after-newer-transaction"
