package ledger

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The book forgets records once the share group is done with them: memory
// stays bounded by what the share group still holds.
func TestBookForgetsRecordsTheShareGroupIsDoneWith(t *testing.T) {
	const n = 6
	c := newCell(t, n)
	w := c.worker("w1.0")
	batch := w.poll(n)
	w.process(batch)
	w.addAcks(batch)
	if conflicts := w.validate(batch); len(conflicts) != 0 {
		t.Fatal(srcs(conflicts))
	}
	w.end(kgo.TryCommit)
	w.ack(kgo.AckAccept, batch)
	c.shareDone(n)

	fresh, err := New(ctx(t), Config{Topic: "ledger", Group: group, Seeds: c.seeds, PruneInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.PreCheck(ctx(t), nil); err != nil {
		t.Fatal(err)
	}
	if s := fresh.Stats(); s.Records != 0 || s.Pruned != n || s.PruneErr != nil || s.Position == 0 {
		t.Errorf("stats %+v, want all %d records read and pruned", s, n)
	}

	keep, err := New(ctx(t), Config{Topic: "ledger", Seeds: c.seeds}) // no group: nothing pruned
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	done, err := keep.PreCheck(ctx(t), batch)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "already done", done, batch)
	if s := keep.Stats(); s.Records != n || s.Pruned != 0 {
		t.Errorf("stats without a group %+v, want %d records kept", s, n)
	}
}

// Validate refuses when it sees that the transaction it validates is no
// longer open (its read went past its own entry, which only the end of that
// transaction allows). Best effort: it sees it only when one fetch spans past
// the entry; the commit of an ended transaction fails anyway.
func TestValidateRefusesAnEndedTransaction(t *testing.T) {
	c := newCell(t, 2)
	other, w := c.worker("w1.0"), c.worker("w2.0")
	other.process(handmade(1))
	other.addAcks(handmade(1)) // ledger 0, then its commit marker at 1
	other.end(kgo.TryCommit)
	batch := handmade(0)
	w.process(batch)
	w.addAcks(batch)    // ledger 2
	w.end(kgo.TryAbort) // marker 3: e.g. the coordinator timed it out under us
	_, err := w.acker.Validate(ctx(t), w.txn(), batch)
	if err == nil || !strings.Contains(err.Error(), "no longer open") {
		t.Errorf("validate after the transaction ended: %v", err)
	}
}

func TestValidateNeedsItsEntry(t *testing.T) {
	c := newCell(t, 1)
	w := c.worker("w1.0")
	w.seq = 9
	if _, err := w.acker.Validate(ctx(t), w.txn(), handmade(0)); err == nil {
		t.Error("validate without AddAcks: no error")
	}
}

func TestPreCheckWaitIsBounded(t *testing.T) {
	c := newCell(t, 1)
	writer := c.worker("w1.0")
	batch := handmade(0)
	writer.process(batch)
	writer.addAcks(batch) // open, and stays open
	a, err := New(ctx(t), Config{Topic: "ledger", Seeds: c.seeds, WaitTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.PreCheck(context.Background(), batch); err == nil {
		t.Error("pre-check behind a transaction that never ends returned without error")
	}
	writer.end(kgo.TryAbort)
}

func TestConfigRefusesMissingParts(t *testing.T) {
	for _, cfg := range []Config{{Seeds: []string{"127.0.0.1:1"}}, {Topic: "ledger"}} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
