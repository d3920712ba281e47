package kafkatoxic

import (
	"encoding/json"
	"fmt"
	"time"
)

// Status is what a toxic has done so far, across all its connections.
type Status struct {
	// Matched counts frames whose api key matched (on the downstream:
	// every frame), whether or not the action fired on them.
	Matched int64 `json:"matched"`
	// Fired counts the frames the action was applied to.
	Fired int64 `json:"fired"`
	// FirstFiredAt and LastFiredAt are nil until the action fires.
	FirstFiredAt *time.Time `json:"first_fired_at,omitempty"`
	LastFiredAt  *time.Time `json:"last_fired_at,omitempty"`
	// Released: the toxic was released and acts no more.
	Released bool `json:"released"`
	// Holding counts connections whose direction is held or delayed now,
	// HeldBytes the bytes they buffer.
	Holding   int64 `json:"holding"`
	HeldBytes int64 `json:"held_bytes"`
	// DiscardedBytes were held when their sender closed the connection, and
	// so never forwarded (see the package comment).
	DiscardedBytes int64 `json:"discarded_bytes"`
	// Desynced counts connections whose stream stopped looking like Kafka
	// framing; the toxic passes them through unparsed.
	Desynced int64 `json:"desynced"`
	// Captures are the frames ActionCapture kept, oldest first;
	// CapturesDropped counts captured frames past the limit.
	Captures        []Capture `json:"captures,omitempty"`
	CapturesDropped int64     `json:"captures_dropped,omitempty"`
}

// Capture is one captured frame.
type Capture struct {
	At     time.Time `json:"at"`
	Header Header    `json:"header"`
	// Frame is the whole frame, size field included; base64 in JSON.
	Frame []byte `json:"frame"`
}

// shown is a toxic as toxiproxy's API shows it (GET
// /proxies/{proxy}/toxics/{name}).
type shown struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Stream     string `json:"stream"`
	Attributes struct {
		wireAttributes
		Status Status `json:"status"`
	} `json:"attributes"`
}

// ParseShown reads a Kafka toxic as toxiproxy's HTTP API shows it (the body
// of GET /proxies/{proxy}/toxics/{name}): its spec and its status.
func ParseShown(body []byte) (Spec, Status, error) {
	var s shown
	if err := json.Unmarshal(body, &s); err != nil {
		return Spec{}, Status{}, fmt.Errorf("parse toxic: %w", err)
	}
	if s.Type != TypeName {
		return Spec{}, Status{}, fmt.Errorf("parse toxic %q: type %q, want %q", s.Name, s.Type, TypeName)
	}
	spec, err := s.Attributes.wireAttributes.apply(Spec{Name: s.Name})
	if err != nil {
		return Spec{}, Status{}, fmt.Errorf("parse toxic %q: %w", s.Name, err)
	}
	return spec, s.Attributes.Status, nil
}
