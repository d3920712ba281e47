package large

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
)

// The in-place scan reads what json.Marshal wrote, and skips ids quoted
// inside an error text.
func TestScanLineReadsMarshalledEvents(t *testing.T) {
	for _, tc := range []struct {
		e    history.Event
		want []uint32
	}{
		{history.Event{TS: 12, Worker: "w1.2", Type: history.OK, F: history.FPoll,
			Records: []history.Rec{{ID: "r-000007", Delivery: 1}, {ID: "r-1234567"}}}, []uint32{7, 1234567}},
		{history.Event{TS: 13, Worker: "w1.2", Type: history.Fail, F: history.FCommit, Txn: 42,
			IDs: []string{"r-000003"}, Error: `record "r-000009" failed`}, []uint32{3}},
		{history.Event{TS: 14, Worker: "orchestrator", Type: history.Info, F: history.FStart,
			Attrs: map[string]string{"txn": "5"}}, nil},
	} {
		b, err := json.Marshal(tc.e)
		if err != nil {
			t.Fatal(err)
		}
		var li lineInfo
		scanLine(b, &li)
		if li.ts != tc.e.TS || string(li.worker) != tc.e.Worker || string(li.typ) != string(tc.e.Type) ||
			string(li.f) != tc.e.F || li.txn != tc.e.Txn || !slices.Equal(li.ids, tc.want) && len(li.ids)+len(tc.want) > 0 {
			t.Errorf("%s: scanned %+v", b, li)
		}
		// The slow path (keys searched) agrees with the fast one.
		var slow lineInfo
		scanHeader(append([]byte(`{"x":1,`), b[1:]...), &slow)
		if slow.ts != li.ts || string(slow.worker) != string(li.worker) || slow.txn != li.txn {
			t.Errorf("%s: slow path %+v, fast %+v", b, slow, li)
		}
	}
}
