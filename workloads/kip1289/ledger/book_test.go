package ledger

import (
	"reflect"
	"testing"
)

// A ledger as a test writes it by hand: entries in offset order, each
// committed or aborted. Only committed entries reach a read_committed
// reader, so only they reach the book.
type row struct {
	offset    int64
	worker    string
	committed bool
	offsets   []int64 // input records in/0/<offset>
}

func replay(t *testing.T, rows []row) *Book {
	t.Helper()
	b := NewBook()
	for _, r := range rows {
		if !r.committed {
			continue
		}
		if err := b.Apply(r.offset, Entry{Worker: r.worker, Seq: r.offset, Records: in(r.offsets...)}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func in(offsets ...int64) []RecordID {
	out := make([]RecordID, len(offsets))
	for i, o := range offsets {
		out[i] = RecordID{"in", 0, o}
	}
	return out
}

func TestConflicts(t *testing.T) {
	cases := []struct {
		name  string
		rows  []row
		batch []int64
		own   int64
		want  []int64 // conflicting input offsets; nil: commit
	}{
		{"empty ledger: commit", nil, []int64{1, 2}, 0, nil},
		{"committed entry below ours holds a record: conflict",
			[]row{{0, "w1.0", true, []int64{2, 3}}}, []int64{1, 2}, 1, []int64{2}},
		{"committed entry below ours holds every record: all conflict",
			[]row{{3, "w1.0", true, []int64{1, 2}}}, []int64{1, 2}, 7, []int64{1, 2}},
		{"aborted entry below ours: commit",
			[]row{{0, "w1.0", false, []int64{1, 2}}}, []int64{1, 2}, 1, nil},
		{"committed entry above ours cannot have won: commit",
			[]row{{5, "w1.0", true, []int64{1, 2}}}, []int64{1, 2}, 4, nil},
		{"disjoint records below ours: commit",
			[]row{{0, "w1.0", true, []int64{7, 8}}}, []int64{1, 2}, 1, nil},
		{"our own earlier committed transaction holds it (crash after commit, redelivered to us): conflict",
			[]row{{0, "w0.0", true, []int64{1}}}, []int64{1}, 3, []int64{1}},
		{"aborted, then committed by someone else, then ours: conflict",
			[]row{{0, "w1.0", false, []int64{1}}, {1, "w2.0", true, []int64{1}}}, []int64{1}, 2, []int64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := replay(t, c.rows)
			got := b.Conflicts(in(c.batch...), c.own)
			var want []RecordID
			if c.want != nil {
				want = in(c.want...)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("conflicts %v, want %v", got, want)
			}
		})
	}
}

func TestConflictsAreExactRecords(t *testing.T) {
	b := NewBook()
	if err := b.Apply(0, Entry{Worker: "w1.0", Records: []RecordID{{"in", 1, 1}, {"other", 0, 1}}}); err != nil {
		t.Fatal(err)
	}
	if got := b.Conflicts(in(1), 5); got != nil {
		t.Errorf("in/1/1 and other/0/1 committed; in/0/1 conflicts: %v", got)
	}
}

func TestCommittedAndFirstWins(t *testing.T) {
	b := replay(t, []row{
		{0, "w1.0", false, []int64{1, 2}}, // aborted: invisible
		{1, "w2.0", true, []int64{2, 3}},
		{4, "w3.0", true, []int64{3, 4}}, // 3 again: cannot happen with validation, must not move the winner
	})
	if got := b.Committed(in(1, 2, 3, 4, 5)); !reflect.DeepEqual(got, in(2, 3, 4)) {
		t.Errorf("committed %v, want in/0/2..4", got)
	}
	if got := b.Conflicts(in(3), 2); !reflect.DeepEqual(got, in(3)) {
		t.Errorf("record 3 first committed at 1: a transaction at 2 conflicts, got %v", got)
	}
	if got := b.Conflicts(in(4), 2); got != nil {
		t.Errorf("record 4 first committed at 4: no conflict for a transaction at 2, got %v", got)
	}
	if err := b.Apply(3, Entry{}); err == nil {
		t.Error("an entry at 3 after one at 4 was applied: a read went backwards")
	}
}

func TestPrune(t *testing.T) {
	b := replay(t, []row{{0, "w1.0", true, []int64{1, 2, 3, 10}}})
	if err := b.Apply(1, Entry{Records: []RecordID{{"other", 0, 1}}}); err != nil {
		t.Fatal(err)
	}
	n := b.Prune(map[string]map[int32]int64{"in": {0: 3}})
	if n != 2 || b.Len() != 3 {
		t.Errorf("pruned %d, left %d; want 2 pruned (in/0/1, in/0/2), 3 left", n, b.Len())
	}
	if got := b.Committed(append(in(1, 2, 3, 10), RecordID{"other", 0, 1})); len(got) != 3 {
		t.Errorf("after prune: committed %v", got)
	}
}
