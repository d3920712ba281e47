package shareconsumer

import (
	"math"
	"sync"
)

// session is this member's share session on one broker. Its epoch orders
// every ShareFetch and ShareAcknowledge sent to that broker: 0 opens the
// session, each answered request moves it on by one (wrapping to 1, as
// Kafka does), and -1 closes it. A request with the wrong epoch is refused
// with INVALID_SHARE_SESSION_EPOCH, so requests to one broker are sent one at
// a time: mu is held from building a request until its answer is applied.
type session struct {
	node int32

	mu sync.Mutex
	// epoch is the epoch of the next request; 0 means no session is open
	// (never opened, or reset after an error that left the broker's epoch
	// unknown to us).
	epoch int32
	// parts are the partitions the broker has in the session: the full set
	// sent at epoch 0 plus every partition listed since, minus the
	// forgotten ones. Incremental fetches name only the difference.
	parts map[topicPartition]struct{}
	// gaps are acquired offsets known not to be records (see gap.go),
	// acknowledged as GAP on the next request of this session.
	gaps map[topicPartition][]int64
}

func newSession(node int32) *session {
	return &session{node: node, parts: map[topicPartition]struct{}{}, gaps: map[topicPartition][]int64{}}
}

// advance applies an answered request: the broker moved the epoch on.
func (s *session) advance() {
	if s.epoch == math.MaxInt32 {
		s.epoch = 1
		return
	}
	s.epoch++
}

// reset forgets the session after a transport error (the connection, and
// the broker's session with it, may be gone, or the request may have been
// applied without our seeing the answer) or a session error from the broker.
// The next request opens a new session with epoch 0. Pending gaps go too:
// acks are refused at epoch 0, and the gaps come back when their locks expire.
func (s *session) reset() {
	s.epoch = 0
	clear(s.parts)
	clear(s.gaps)
}
