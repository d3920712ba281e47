package reports

import (
	"github.com/sharechaos/sharechaos/bench"
	"hash/fnv"
	"image/color"
	"strings"
)

// palette gives every metric and every mode one colour in every figure of
// every report (a mode's line is the same blue in each scenario's overlay, a
// metric's the same orange in each cell's spectrum).
var palette = map[string]color.Color{
	// modes
	"transactional": color.NRGBA{R: 31, G: 119, B: 180, A: 255},
	"explicit":      color.NRGBA{R: 214, G: 39, B: 40, A: 255},
	"implicit":      color.NRGBA{R: 44, G: 160, B: 44, A: 255},
	// metrics
	bench.TxnCommitDuration:  color.NRGBA{R: 255, G: 127, B: 14, A: 255},
	bench.TxnTotalDuration:   color.NRGBA{R: 148, G: 103, B: 189, A: 255},
	bench.ShareAckDuration:   color.NRGBA{R: 23, G: 190, B: 207, A: 255},
	bench.TxnAcksDuration:    color.NRGBA{R: 140, G: 86, B: 75, A: 255},
	bench.TxnServiceDuration: color.NRGBA{R: 188, G: 189, B: 34, A: 255},
	bench.E2ELatency:         color.NRGBA{R: 227, G: 119, B: 194, A: 255},
	bench.IterationDuration:  color.NRGBA{R: 127, G: 127, B: 127, A: 255},
	"committed_records":      color.NRGBA{R: 31, G: 119, B: 180, A: 255},
}

var fallback = []color.Color{
	color.NRGBA{R: 0, G: 0, B: 0, A: 255}, color.NRGBA{R: 102, G: 102, B: 0, A: 255},
	color.NRGBA{R: 0, G: 102, B: 102, A: 255}, color.NRGBA{R: 102, G: 0, B: 102, A: 255},
}

// colourOf is key's colour: a mode's or a metric's if key starts with one
// ("transactional/ledger", "txn_commit_duration p99"), else a fixed colour
// drawn from the key's hash, so it too never changes between figures.
func colourOf(key string) color.Color {
	if c, ok := palette[key]; ok {
		return c
	}
	// A metric's higher percentile over time ("txn_commit_duration p99") is
	// the metric's colour, darker: the p50 keeps the metric's own.
	if head, q, ok := strings.Cut(key, " p"); ok && q != "50" {
		if c, ok := palette[head]; ok {
			r, g, b, _ := c.RGBA()
			return color.NRGBA{R: uint8(r >> 9), G: uint8(g >> 9), B: uint8(b >> 9), A: 255}
		}
	}
	for _, sep := range []string{"/", " "} {
		if head, _, ok := strings.Cut(key, sep); ok {
			if c, ok := palette[head]; ok {
				return c
			}
		}
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return fallback[int(h.Sum32())%len(fallback)]
}
