package kafkatoxic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// apiCall speaks toxiproxy's HTTP API as a remote caller (the docker
// backend) does.
func apiCall(t *testing.T, method, url string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestThroughTheHTTPAPI drives the toxic only through toxiproxy's HTTP API:
// create it from Spec.Body, see it fire in the status a GET shows, release
// it with ReleaseBody, delete it.
func TestThroughTheHTTPAPI(t *testing.T) {
	r := newKafkaRig(t)
	ctx := testContext(t)
	api := httptest.NewServer(r.server.Routes())
	defer api.Close()

	code, body := apiCall(t, http.MethodPost, api.URL+"/proxies", map[string]any{
		"name": "api-broker", "listen": "127.0.0.1:0", "upstream": r.broker, "enabled": true,
	})
	if code != http.StatusCreated {
		t.Fatalf("create proxy: %d %s", code, body)
	}
	var created struct {
		Listen string `json:"listen"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		t.Fatal(err)
	}
	defer apiCall(t, http.MethodDelete, api.URL+"/proxies/api-broker", nil)

	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, created.Listen)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(created.Listen), kgo.Dialer(dial), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	if code, body := apiCall(t, http.MethodPost, api.URL+"/proxies/api-broker/toxics",
		map[string]any{"name": "no-key", "type": TypeName, "stream": "upstream", "toxicity": 1, "attributes": map[string]any{"action": "hold"}}); code != http.StatusBadRequest {
		t.Errorf("a toxic without an api key: %d %s, want 400", code, body)
	}

	spec := Spec{Name: "hold-produce", Action: ActionHold, APIKey: 0, Nth: 1}
	if code, body := apiCall(t, http.MethodPost, api.URL+"/proxies/api-broker/toxics", spec.Body()); code != http.StatusOK {
		t.Fatalf("create toxic: %d %s", code, body)
	}
	toxicURL := api.URL + "/proxies/api-broker/toxics/" + spec.ToxicName()
	show := func() (Spec, Status) {
		t.Helper()
		code, body := apiCall(t, http.MethodGet, toxicURL, nil)
		if code != http.StatusOK {
			t.Fatalf("show toxic: %d %s", code, body)
		}
		got, status, err := ParseShown(body)
		if err != nil {
			t.Fatal(err)
		}
		return got, status
	}

	done := make(chan error, 1)
	go func() { done <- cl.ProduceSync(ctx, kgo.StringRecord("x")).FirstErr() }()
	deadline := time.Now().Add(10 * time.Second)
	for _, status := show(); status.Fired == 0; _, status = show() {
		if time.Now().After(deadline) {
			t.Fatal("the toxic never fired")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stillBlocked(t, done, "Produce")
	got, status := show()
	if got.Action != ActionHold || got.APIKey != 0 || got.Nth != 1 || got.Direction != Upstream {
		t.Errorf("shown spec: %+v", got)
	}
	if status.Holding != 1 || status.FirstFiredAt == nil || status.Released {
		t.Errorf("shown status while holding: %+v", status)
	}

	if code, body := apiCall(t, http.MethodPatch, toxicURL, ReleaseBody()); code != http.StatusOK {
		t.Fatalf("release: %d %s", code, body)
	}
	wait(t, done, "Produce")
	if _, status := show(); !status.Released || status.Holding != 0 {
		t.Errorf("shown status after the release: %+v", status)
	}
	if code, body := apiCall(t, http.MethodDelete, toxicURL, nil); code != http.StatusNoContent {
		t.Errorf("delete toxic: %d %s", code, body)
	}
}
