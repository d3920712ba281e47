package kafkatoxic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// benchStream is 4 MiB of request frames of one size, cut into the 32 KiB
// chunks toxiproxy reads (io.Copy's buffer).
func benchStream(frameBody int) [][]byte {
	var frames [][]byte
	size := 0
	for i := 0; size < 4<<20; i++ {
		f := requestFrame(int16(i%30), 3, int32(i), frameBody)
		frames = append(frames, f)
		size += len(f)
	}
	return splitEvery(bytes.Join(frames, nil), 32<<10)
}

func totalLen(chunks [][]byte) int64 {
	var n int64
	for _, c := range chunks {
		n += int64(len(c))
	}
	return n
}

// BenchmarkScanner is the framing parser alone: MB/s is its throughput.
func BenchmarkScanner(b *testing.B) {
	for _, body := range []int{20, 200, 4 << 10, 64 << 10} {
		chunks := benchStream(body)
		b.Run(fmt.Sprintf("frame=%dB", body+requestHeaderLen), func(b *testing.B) {
			b.SetBytes(totalLen(chunks))
			frames := 0
			for b.Loop() {
				s := scanner{frames: Requests}
				for _, c := range chunks {
					for i := 0; i < len(c); {
						st := s.next(c[i:])
						if st.kind == stepHeader {
							frames++
						}
						i += st.n
					}
				}
			}
			b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// BenchmarkFeed is the toxic's per-connection work on frames that pass (the
// common case: the toxic matches a rare api key): parsing, counting matches
// and handing chunks on, without toxiproxy's channels.
func BenchmarkFeed(b *testing.B) {
	toxic := new(Toxic)
	spec := Spec{Action: ActionDrop, APIKey: 27, Nth: 1 << 62}
	for _, body := range []int{20, 200, 4 << 10, 64 << 10} {
		raw := benchStream(body)
		chunks := make([]*stream.StreamChunk, len(raw))
		now := time.Now()
		for i, c := range raw {
			chunks[i] = &stream.StreamChunk{Data: c, Timestamp: now}
		}
		b.Run(fmt.Sprintf("frame=%dB", body+requestHeaderLen), func(b *testing.B) {
			b.SetBytes(totalLen(raw))
			b.ReportAllocs()
			for b.Loop() {
				cs := connState{scan: scanner{frames: Requests}}
				for _, c := range chunks {
					cs.feed(toxic, spec, true, c)
					cs.out, cs.outPos = cs.out[:0], 0
				}
			}
		})
	}
}

// BenchmarkProxy sends request frames through an in-process toxiproxy proxy
// to a server that reads and discards them, without and with the toxic on
// the upstream stream: the toxic's cost within a real link.
func BenchmarkProxy(b *testing.B) {
	Register()
	sink, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close()
	received := make(chan int64, 1)
	go func() {
		for {
			conn, err := sink.Accept()
			if err != nil {
				return
			}
			go func() {
				n, _ := io.Copy(io.Discard, conn)
				conn.Close()
				received <- n
			}()
		}
	}()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	proxy := toxiproxy.NewProxy(server, "bench", "127.0.0.1:0", sink.Addr().String())
	if err := proxy.Start(); err != nil {
		b.Fatal(err)
	}
	defer proxy.Stop()

	payload := bytes.Join(benchStream(200), nil)
	for _, withToxic := range []bool{false, true} {
		b.Run(fmt.Sprintf("toxic=%v", withToxic), func(b *testing.B) {
			spec := Spec{Name: "bench", Action: ActionDrop, APIKey: 27, Nth: 1 << 62}
			if withToxic {
				if _, err := Add(proxy, spec); err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := Remove(context.Background(), proxy, spec.Name); err != nil {
						b.Error(err)
					}
				}()
			}
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				conn, err := net.Dial("tcp", proxy.Listen)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Write(payload); err != nil {
					b.Fatal(err)
				}
				conn.Close()
				if n := <-received; n != int64(len(payload)) {
					b.Fatalf("the sink got %d bytes, want %d", n, len(payload))
				}
			}
		})
	}
}
