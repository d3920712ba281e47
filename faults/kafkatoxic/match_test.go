package kafkatoxic

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// shareWriteFrame is a WriteShareGroupState request frame (v1, header v2
// with a client id and no tags) writing partition p of one topic with the
// start offset start and one ACKNOWLEDGED batch first..last.
func shareWriteFrame(corr int32, p int32, start, first, last int64) []byte {
	req := kmsg.NewPtrWriteShareGroupStateRequest()
	req.SetVersion(1)
	req.GroupID = "g"
	tp := kmsg.NewWriteShareGroupStateRequestTopicPartition()
	tp.Partition, tp.StartOffset, tp.LeaderEpoch = p, start, 3
	b := kmsg.NewWriteShareGroupStateRequestTopicPartitionStateBatch()
	b.FirstOffset, b.LastOffset, b.DeliveryState, b.DeliveryCount = first, last, 2, 1
	tp.StateBatches = append(tp.StateBatches, b)
	t := kmsg.NewWriteShareGroupStateRequestTopic()
	t.Partitions = append(t.Partitions, tp)
	req.Topics = append(req.Topics, t)
	body := req.AppendTo(nil)
	clientID := "broker-1"
	frame := make([]byte, requestHeaderLen, requestHeaderLen+2+len(clientID)+1+len(body))
	binary.BigEndian.PutUint16(frame[4:], uint16(WriteShareGroupStateKey))
	binary.BigEndian.PutUint16(frame[6:], 1)
	binary.BigEndian.PutUint32(frame[8:], uint32(corr))
	frame = binary.BigEndian.AppendUint16(frame, uint16(len(clientID)))
	frame = append(frame, clientID...)
	frame = append(frame, 0) // no header tags
	frame = append(frame, body...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-sizeLen))
	return frame
}

// shareWrites: a write at the start (0-9 from 0), one above it (20-29 over
// an unacknowledged 10-19), an unrelated request between them, and the
// write above the start again (the persister's resend).
func shareWrites() [][]byte {
	return [][]byte{
		shareWriteFrame(1, 0, 0, 0, 9),
		requestFrame(1, 12, 2, 300), // a replication Fetch on the same link
		shareWriteFrame(3, 0, 0, 20, 29),
		shareWriteFrame(4, 0, 20, 30, 39),
		shareWriteFrame(5, 0, 0, 20, 29),
	}
}

func TestShareWriteOfDecodesWhatTheMatchesRead(t *testing.T) {
	got, err := ShareWritesAboveStart(shareWrites()[2])
	if err != nil {
		t.Fatal(err)
	}
	if want := []ShareWrite{{Partition: 0, LeaderEpoch: 3, StartOffset: 0, First: 20, Last: 29, DeliveryCompleteCount: -1}}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("writes above start: %+v, want %+v", got, want)
	}
	if got, err := ShareWritesAboveStart(shareWrites()[0]); err != nil || len(got) != 0 {
		t.Errorf("a write at its start offset: %+v %v, want none", got, err)
	}
	if _, err := ShareWriteOf(shareWrites()[1]); err == nil {
		t.Error("a Fetch decoded as a WriteShareGroupState")
	}
}

// TestMatchActsOnTheNamedWritesOnly: a toxic with a match acts on the
// WriteShareGroupState frames the match names and passes the others
// untouched, in order, however the stream is cut into chunks: reset at the
// first write above its start closes the connection before it, a capture
// of one write again keeps that frame, a hold of it holds it and what
// follows until the release.
func TestMatchActsOnTheNamedWritesOnly(t *testing.T) {
	frames := shareWrites()
	stream := bytes.Join(frames, nil)
	for name, chunks := range chunkings(stream) {
		t.Run(name+"/reset", func(t *testing.T) {
			r := newPipeRig(t, Spec{Action: ActionReset, APIKey: WriteShareGroupStateKey, Match: MatchShareWriteAboveStart, Nth: 1})
			r.send(chunks...)
			r.waitFor("the connection closed", func(_ []byte, closed bool) bool { return closed })
			if got, _ := r.output(); !bytes.Equal(got, without(frames, func(i int) bool { return i >= 2 })) {
				t.Errorf("forwarded %d bytes, want the two frames before the first write above its start", len(got))
			}
			if s := r.toxic.Status(); s.Matched != 1 || s.Fired != 1 {
				t.Errorf("status %+v: want 1 matched, 1 fired", s)
			}
		})
		t.Run(name+"/capture", func(t *testing.T) {
			r := newPipeRig(t, Spec{Action: ActionCapture, APIKey: WriteShareGroupStateKey, Match: ShareWriteMatch(0, 0, 20)})
			r.send(chunks...)
			r.waitForBytes(stream)
			caps := r.toxic.Captures()
			if len(caps) != 2 || !bytes.Equal(caps[0].Frame, frames[2]) || !bytes.Equal(caps[1].Frame, frames[4]) || caps[1].Header.CorrelationID != 5 {
				t.Errorf("captures %d, want the write 20-29 from 0 and its resend", len(caps))
			}
		})
		t.Run(name+"/hold-the-resend", func(t *testing.T) {
			r := newPipeRig(t, Spec{Action: ActionHold, APIKey: WriteShareGroupStateKey, Match: ShareWriteMatch(0, 0, 20), Nth: 2})
			r.send(chunks...)
			waitStatus(t, r.toxic, "the resend held", func(s Status) bool { return s.Holding == 1 })
			r.waitForBytes(without(frames, func(i int) bool { return i == 4 }))
			r.toxic.Release()
			r.waitForBytes(stream)
		})
		t.Run(name+"/drop", func(t *testing.T) {
			r := newPipeRig(t, Spec{Action: ActionDrop, APIKey: WriteShareGroupStateKey, Match: ShareWriteMatch(0, 20, 30)})
			r.send(chunks...)
			r.waitForBytes(without(frames, func(i int) bool { return i == 3 }))
			if s := r.toxic.Status(); s.Holding != 0 || s.HeldBytes != 0 {
				t.Errorf("status %+v: nothing should be held", s)
			}
		})
	}
}

func TestMatchSpecValidation(t *testing.T) {
	for _, s := range []Spec{
		{Action: ActionReset, APIKey: 27, Match: MatchShareWriteAboveStart},
		{Action: ActionReset, APIKey: WriteShareGroupStateKey, Match: "share-write=0:x:1"},
		{Action: ActionReset, APIKey: WriteShareGroupStateKey, Match: "every-write"},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", s)
		}
	}
	if err := (Spec{Action: ActionReset, APIKey: WriteShareGroupStateKey, Match: ShareWriteMatch(1, 2, 3)}).Validate(); err != nil {
		t.Error(err)
	}
}
