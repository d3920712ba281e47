package kafkatoxic

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// requestFrame builds a request frame: header, then body bytes that spell
// out the correlation id so a misplaced byte shows.
func requestFrame(key, version int16, corr int32, body int) []byte {
	b := make([]byte, requestHeaderLen+body)
	binary.BigEndian.PutUint32(b, uint32(len(b)-sizeLen))
	binary.BigEndian.PutUint16(b[4:], uint16(key))
	binary.BigEndian.PutUint16(b[6:], uint16(version))
	binary.BigEndian.PutUint32(b[8:], uint32(corr))
	for i := requestHeaderLen; i < len(b); i++ {
		b[i] = byte(int(corr) + i)
	}
	return b
}

func responseFrame(corr int32, body int) []byte {
	b := make([]byte, responseHeaderLen+body)
	binary.BigEndian.PutUint32(b, uint32(len(b)-sizeLen))
	binary.BigEndian.PutUint32(b[4:], uint32(corr))
	for i := responseHeaderLen; i < len(b); i++ {
		b[i] = byte(int(corr) * i)
	}
	return b
}

// someRequests is a mix of small and large frames, header-only ones
// included, with keys that repeat.
func someRequests() ([][]byte, []Header) {
	specs := []struct {
		key  int16
		body int
	}{{18, 0}, {3, 5}, {0, 70000}, {26, 40}, {27, 1}, {0, 3}, {26, 0}, {1, 16384}, {27, 300}}
	var frames [][]byte
	var headers []Header
	for i, s := range specs {
		f := requestFrame(s.key, int16(i%4), int32(i+1), s.body)
		frames = append(frames, f)
		headers = append(headers, Header{Size: int32(len(f) - sizeLen), APIKey: s.key, APIVersion: int16(i % 4), CorrelationID: int32(i + 1)})
	}
	return frames, headers
}

// scanAll feeds chunks to a scanner and returns the headers it found and the
// bytes it accounted for, put back together from the steps.
func scanAll(t *testing.T, frames Frames, chunks [][]byte) ([]Header, []byte) {
	t.Helper()
	s := scanner{frames: frames}
	var headers []Header
	var out []byte
	for _, c := range chunks {
		for i := 0; i < len(c); {
			st := s.next(c[i:])
			if st.n <= 0 || st.n > len(c)-i {
				t.Fatalf("step %+v consumed %d of %d bytes", st.kind, st.n, len(c)-i)
			}
			switch st.kind {
			case stepHeader:
				headers = append(headers, st.header)
				if st.raw != nil {
					out = append(out, st.raw...)
				} else {
					out = append(out, c[i:i+st.n]...)
				}
			case stepPartial:
				// in the stash: appears with the header
			case stepDesync:
				if st.raw != nil {
					out = append(out, st.raw...)
				} else {
					out = append(out, c[i:i+st.n]...)
				}
			default:
				out = append(out, c[i:i+st.n]...)
			}
			i += st.n
		}
	}
	out = append(out, s.pending()...)
	return headers, out
}

func splitEvery(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		k := min(n, len(b))
		out = append(out, b[:k])
		b = b[k:]
	}
	return out
}

func splitRandomly(b []byte, r *rand.Rand, maxLen int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		k := min(1+r.IntN(maxLen), len(b))
		out = append(out, b[:k])
		b = b[k:]
	}
	return out
}

func TestScannerFindsFramesWhateverTheChunking(t *testing.T) {
	frames, want := someRequests()
	stream := bytes.Join(frames, nil)
	r := rand.New(rand.NewPCG(1, 2))
	cases := map[string][][]byte{
		"merged in one chunk":           {stream},
		"byte by byte":                  splitEvery(stream, 1),
		"11 bytes (less than a header)": splitEvery(stream, requestHeaderLen-1),
		"13 bytes":                      splitEvery(stream, requestHeaderLen+1),
		"one chunk per frame":           frames,
		"random up to 40":               splitRandomly(stream, r, 40),
		"random up to 32k":              splitRandomly(stream, r, 32<<10),
	}
	for name, chunks := range cases {
		t.Run(name, func(t *testing.T) {
			got, out := scanAll(t, Requests, chunks)
			if len(got) != len(want) {
				t.Fatalf("found %d headers, want %d: %+v", len(got), len(want), got)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("header %d = %+v, want %+v", i, got[i], want[i])
				}
			}
			if !bytes.Equal(out, stream) {
				t.Errorf("the steps account for %d bytes that differ from the %d of the stream", len(out), len(stream))
			}
		})
	}
}

func TestScannerReadsResponses(t *testing.T) {
	var frames [][]byte
	for i := range 5 {
		frames = append(frames, responseFrame(int32(100+i), i*7))
	}
	stream := bytes.Join(frames, nil)
	for _, n := range []int{1, 3, 8, 9, len(stream)} {
		got, out := scanAll(t, Responses, splitEvery(stream, n))
		if len(got) != len(frames) {
			t.Fatalf("chunks of %d: %d headers, want %d", n, len(got), len(frames))
		}
		for i, h := range got {
			if h.CorrelationID != int32(100+i) || h.APIKey != AnyAPIKey || h.FrameLen() != len(frames[i]) {
				t.Errorf("chunks of %d: header %d = %+v", n, i, h)
			}
		}
		if !bytes.Equal(out, stream) {
			t.Errorf("chunks of %d: bytes differ", n)
		}
	}
}

func TestScannerPassesAStreamThatIsNotKafka(t *testing.T) {
	good := requestFrame(18, 3, 1, 10)
	garbage := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	stream := append(append([]byte(nil), good...), garbage...)
	stream = append(stream, requestFrame(26, 4, 2, 10)...)
	for _, n := range []int{1, 5, len(stream)} {
		got, out := scanAll(t, Requests, splitEvery(stream, n))
		if len(got) != 1 || got[0].APIKey != 18 {
			t.Errorf("chunks of %d: headers %+v, want only the first frame's", n, got)
		}
		if !bytes.Equal(out, stream) {
			t.Errorf("chunks of %d: bytes differ", n)
		}
	}
}

func TestParseHeaderRefusesWhatCannotBeKafka(t *testing.T) {
	cases := map[string][]byte{
		"short":             requestFrame(0, 0, 1, 0)[:11],
		"size below header": {0, 0, 0, 7, 0, 1, 0, 1, 0, 0, 0, 1},
		"size past 1 GiB":   {0x7f, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1},
		"negative key":      {0, 0, 0, 8, 0xff, 0xfe, 0, 1, 0, 0, 0, 1},
		"negative version":  {0, 0, 0, 8, 0, 1, 0x80, 0, 0, 0, 0, 1},
	}
	for name, b := range cases {
		if h, err := ParseHeader(Requests, b); err == nil {
			t.Errorf("%s: parsed %+v, want an error", name, h)
		}
	}
	h, err := ParseHeader(Requests, requestFrame(27, 1, 42, 0))
	if err != nil || h.APIKey != 27 || h.APIVersion != 1 || h.CorrelationID != 42 || h.Size != 8 {
		t.Errorf("header-only frame: %+v, %v", h, err)
	}
}
