package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Kafka's request metrics, read from each broker's Jolokia agent (our images
// carry it: docker/images/kafka/start.sh) through its metrics proxy. Every
// part of a request's time is a Yammer histogram per API; its Mean is exact
// (its sum over its count), so Mean x Count is the part's summed time. Kafka
// records each request's parts in whole milliseconds.

// requestTimeParts maps each histogram's name to the field it sums into.
var requestTimeParts = map[string]func(*cluster.RequestTime) *float64{
	"TotalTimeMs":         func(r *cluster.RequestTime) *float64 { return &r.TotalMs },
	"RequestQueueTimeMs":  func(r *cluster.RequestTime) *float64 { return &r.RequestQueueMs },
	"LocalTimeMs":         func(r *cluster.RequestTime) *float64 { return &r.LocalMs },
	"RemoteTimeMs":        func(r *cluster.RequestTime) *float64 { return &r.RemoteMs },
	"ResponseQueueTimeMs": func(r *cluster.RequestTime) *float64 { return &r.ResponseQueueMs },
	"ResponseSendTimeMs":  func(r *cluster.RequestTime) *float64 { return &r.ResponseSendMs },
}

// requestTimesTimeout bounds one reading of every broker.
const requestTimesTimeout = 10 * time.Second

// RequestTimes reads every broker's request metrics and sums them. A broker
// that does not answer (killed, paused, or an image without the agent:
// SHARECHAOS_KAFKA_IMAGE) makes it an error naming that broker.
func (c *Cluster) RequestTimes(ctx context.Context) (cluster.RequestTimes, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimesTimeout)
	defer cancel()
	sum := cluster.RequestTimes{}
	for i, base := range c.metrics {
		t, err := readRequestTimes(ctx, base)
		if err != nil {
			return nil, fmt.Errorf("read request metrics of broker %d (%s, Jolokia agent on %d): %w", i+1, c.brokerImage(i+1), brokerMetricsPort, err)
		}
		sum.Add(t)
	}
	return sum, nil
}

// jolokiaRead is one read in Jolokia's bulk request.
type jolokiaRead struct {
	Type      string   `json:"type"`
	MBean     string   `json:"mbean"`
	Attribute []string `json:"attribute"`
}

// jolokiaAnswer is one read's answer: for a pattern, the matching MBeans'
// names to their attributes.
type jolokiaAnswer struct {
	Status int                                   `json:"status"`
	Error  string                                `json:"error"`
	Value  map[string]map[string]json.RawMessage `json:"value"`
}

// readRequestTimes reads one broker's histograms in one bulk request.
func readRequestTimes(ctx context.Context, base string) (cluster.RequestTimes, error) {
	var reads []jolokiaRead
	var parts []string
	for part := range requestTimeParts {
		parts = append(parts, part)
		reads = append(reads, jolokiaRead{Type: "read", Attribute: []string{"Count", "Mean"},
			MBean: "kafka.network:type=RequestMetrics,name=" + part + ",request=*"})
	}
	body, _ := json.Marshal(reads)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/jolokia/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, raw)
	}
	var answers []jolokiaAnswer
	if err := json.Unmarshal(raw, &answers); err != nil {
		return nil, fmt.Errorf("not a Jolokia answer: %w", err)
	}
	if len(answers) != len(parts) {
		return nil, fmt.Errorf("Jolokia answered %d reads of %d", len(answers), len(parts))
	}
	return parseRequestTimes(parts, answers)
}

// parseRequestTimes turns the answers (answers[i] is the read of parts[i])
// into request times per API.
func parseRequestTimes(parts []string, answers []jolokiaAnswer) (cluster.RequestTimes, error) {
	out := cluster.RequestTimes{}
	for i, a := range answers {
		if a.Status != http.StatusOK {
			return nil, fmt.Errorf("Jolokia read of %s: status %d: %s", parts[i], a.Status, a.Error)
		}
		for name, attrs := range a.Value {
			api := mbeanKey(name, "request")
			if api == "" {
				continue
			}
			var count int64
			var mean float64
			if err := json.Unmarshal(attrs["Count"], &count); err != nil {
				return nil, fmt.Errorf("%s: Count: %w", name, err)
			}
			if err := json.Unmarshal(attrs["Mean"], &mean); err != nil {
				return nil, fmt.Errorf("%s: Mean: %w", name, err)
			}
			r := out[api]
			if parts[i] == "TotalTimeMs" {
				r.Count = count
			}
			*requestTimeParts[parts[i]](&r) = mean * float64(count)
			out[api] = r
		}
	}
	return out, nil
}

// mbeanKey is the value of key in an MBean's name
// ("kafka.network:name=TotalTimeMs,request=Produce,type=RequestMetrics"), or
// "" without one.
func mbeanKey(name, key string) string {
	_, props, ok := strings.Cut(name, ":")
	if !ok {
		return ""
	}
	for _, kv := range strings.Split(props, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
