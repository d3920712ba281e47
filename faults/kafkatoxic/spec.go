package kafkatoxic

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// TypeName is the toxic's type in toxiproxy (the "type" of a toxic created
// through the HTTP API).
const TypeName = "kafka"

// Action is what the toxic does to a matching frame.
type Action string

const (
	// ActionHold buffers the frame and everything after it on that
	// connection's direction until the toxic is released or removed.
	ActionHold Action = "hold"
	// ActionDelay holds the frame and what follows until the frame's
	// arrival plus Spec.Delay.
	ActionDelay Action = "delay"
	// ActionDrop swallows the frame; the connection stays up.
	ActionDrop Action = "drop"
	// ActionReset closes the connection (both directions) instead of
	// forwarding the frame.
	ActionReset Action = "reset"
	// ActionCapture forwards the frame and keeps a copy of it.
	ActionCapture Action = "capture"
)

// Direction is toxiproxy's stream the toxic sits on.
type Direction string

const (
	// Upstream: client to broker, requests. The default.
	Upstream Direction = "upstream"
	// Downstream: broker to client, responses.
	Downstream Direction = "downstream"
)

func (d Direction) frames() Frames {
	if d == Downstream {
		return Responses
	}
	return Requests
}

// defaultCaptureLimit bounds the frames one capture toxic keeps.
const defaultCaptureLimit = 16

// Spec describes one Kafka toxic.
type Spec struct {
	// Name is the toxic's name on its proxy; "" means a name made of the
	// action, the api key and the direction.
	Name string
	// Direction defaults to Upstream (requests). On Downstream only
	// AnyAPIKey is allowed: responses do not carry their api key.
	Direction Direction
	Action    Action
	// APIKey is the Kafka api key to match (e.g. 26 EndTxn, 27
	// WriteTxnMarkers), or AnyAPIKey. There is no default: 0 is Produce.
	APIKey int16
	// Nth picks only the nth matching frame through the toxic, counting from
	// 1 across all its connections; 0 acts on every matching frame.
	Nth int64
	// Delay is how long ActionDelay holds a frame; only for ActionDelay.
	Delay time.Duration
	// CaptureLimit bounds the frames ActionCapture keeps (default 16);
	// later ones are counted but not kept.
	CaptureLimit int
	// Match, when set, narrows the matching frames to those whose request
	// says what the match names (match.go: "share-write-above-start",
	// "share-write=P:S:F"); each frame of the api key waits on its
	// connection until it is whole and judged. Requests only; the api key
	// must be the match's.
	Match string
}

func (s Spec) direction() Direction {
	if s.Direction == "" {
		return Upstream
	}
	return s.Direction
}

// ToxicName is the name the toxic gets on its proxy.
func (s Spec) ToxicName() string {
	if s.Name != "" {
		return s.Name
	}
	key := fmt.Sprint(s.APIKey)
	if s.APIKey == AnyAPIKey {
		key = "any"
	}
	return fmt.Sprintf("kafka_%s_%s_%s", s.Action, key, s.direction())
}

func (s Spec) captureLimit() int {
	if s.CaptureLimit == 0 {
		return defaultCaptureLimit
	}
	return s.CaptureLimit
}

// Validate says what is wrong with s, if anything.
func (s Spec) Validate() error {
	var errs []error
	switch s.Action {
	case ActionHold, ActionDelay, ActionDrop, ActionReset, ActionCapture:
	default:
		errs = append(errs, fmt.Errorf("unknown action %q", s.Action))
	}
	switch s.Direction {
	case "", Upstream, Downstream:
	default:
		errs = append(errs, fmt.Errorf("unknown direction %q", s.Direction))
	}
	if s.APIKey < AnyAPIKey {
		errs = append(errs, fmt.Errorf("api key %d: want >= 0, or %d for any", s.APIKey, AnyAPIKey))
	}
	if s.direction() == Downstream && s.APIKey != AnyAPIKey {
		errs = append(errs, fmt.Errorf("api key %d on the downstream: responses carry no api key, use %d (any)", s.APIKey, AnyAPIKey))
	}
	if s.Nth < 0 {
		errs = append(errs, fmt.Errorf("nth %d: want >= 0", s.Nth))
	}
	if (s.Action == ActionDelay) != (s.Delay > 0) {
		errs = append(errs, fmt.Errorf("delay %v: wanted > 0 exactly for action %q", s.Delay, ActionDelay))
	}
	if s.CaptureLimit < 0 {
		errs = append(errs, fmt.Errorf("capture limit %d: want >= 0", s.CaptureLimit))
	}
	if s.Match != "" {
		m, err := parseMatch(s.Match)
		switch {
		case err != nil:
			errs = append(errs, err)
		case s.APIKey != m.apiKey():
			errs = append(errs, fmt.Errorf("match %q is about api key %d, not %d", s.Match, m.apiKey(), s.APIKey))
		case s.direction() != Upstream:
			errs = append(errs, fmt.Errorf("match %q: requests only (the upstream)", s.Match))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("validate kafka toxic: %w", err)
	}
	return nil
}

// wireAttributes is the toxic's attributes in toxiproxy's JSON. Pointers tell
// a missing attribute from a zero one: an update names only what it changes,
// and a new toxic must name its api key (0 is Produce).
type wireAttributes struct {
	Action       *Action    `json:"action,omitempty"`
	APIKey       *int16     `json:"api_key,omitempty"`
	Direction    *Direction `json:"direction,omitempty"`
	Nth          *int64     `json:"nth,omitempty"`
	Delay        *string    `json:"delay,omitempty"`
	CaptureLimit *int       `json:"capture_limit,omitempty"`
	Match        *string    `json:"match,omitempty"`
	// Release heals the toxic (see Toxic.Release); it cannot be undone.
	Release *bool `json:"release,omitempty"`
}

// Attributes is s as the "attributes" of a toxic in toxiproxy's HTTP API.
// Durations are Go duration strings ("250ms").
func (s Spec) Attributes() map[string]any {
	a := map[string]any{
		"action":    string(s.Action),
		"api_key":   s.APIKey,
		"direction": string(s.direction()),
		"nth":       s.Nth,
	}
	if s.Delay > 0 {
		a["delay"] = s.Delay.String()
	}
	if s.CaptureLimit > 0 {
		a["capture_limit"] = s.CaptureLimit
	}
	if s.Match != "" {
		a["match"] = s.Match
	}
	return a
}

// ToxicBody is a whole toxic as toxiproxy's HTTP API takes it
// (POST /proxies/{proxy}/toxics).
type ToxicBody struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// Body is s as a toxic for toxiproxy's HTTP API. The toxic's stream is its
// direction, and toxicity is always 1 (see the package comment).
func (s Spec) Body() ToxicBody {
	return ToxicBody{
		Name:       s.ToxicName(),
		Type:       TypeName,
		Stream:     string(s.direction()),
		Toxicity:   1,
		Attributes: s.Attributes(),
	}
}

// ReleaseBody is the update (PATCH /proxies/{proxy}/toxics/{name}) that
// releases a toxic through the HTTP API.
func ReleaseBody() map[string]any {
	return map[string]any{"attributes": map[string]any{"release": true}}
}

// apply merges the attributes present in w into s.
func (w wireAttributes) apply(s Spec) (Spec, error) {
	if w.Action != nil {
		s.Action = *w.Action
	}
	if w.APIKey != nil {
		s.APIKey = *w.APIKey
	}
	if w.Direction != nil {
		s.Direction = *w.Direction
	}
	if w.Nth != nil {
		s.Nth = *w.Nth
	}
	if w.Delay != nil {
		d, err := time.ParseDuration(*w.Delay)
		if err != nil {
			return s, fmt.Errorf("parse delay: %w", err)
		}
		s.Delay = d
	}
	if w.CaptureLimit != nil {
		s.CaptureLimit = *w.CaptureLimit
	}
	if w.Match != nil {
		s.Match = *w.Match
	}
	return s, nil
}

func (s Spec) wire() wireAttributes {
	dir := s.direction()
	w := wireAttributes{Action: &s.Action, APIKey: &s.APIKey, Direction: &dir, Nth: &s.Nth}
	if s.Delay > 0 {
		d := s.Delay.String()
		w.Delay = &d
	}
	if s.CaptureLimit > 0 {
		w.CaptureLimit = &s.CaptureLimit
	}
	if s.Match != "" {
		w.Match = &s.Match
	}
	return w
}

var _ json.Marshaler = (*Toxic)(nil)
