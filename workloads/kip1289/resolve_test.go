package kip1289

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func TestResolve(t *testing.T) {
	missing := []string{"AddShareAcksToTxn (key 12890)", "TxnShareAcknowledge (key 12891)"}
	without := Support{Native: false, Missing: missing, Brokers: 1}
	with := Support{Native: true, Brokers: 3}
	blocked := Support{Native: true, Brokers: 3, Blocked: errors.New("consumer auto-accepts")}

	cases := []struct {
		name    string
		choice  Choice
		on      OnUnsupported
		s       Support
		want    Decision
		wantErr []string // substrings the error must contain; nil means no error
	}{
		{"auto on old broker is ledger", ChoiceAuto, "", without, Decision{ctp.Transactional, RealizationLedger, ""}, nil},
		{"auto on KIP-1289 broker is native", ChoiceAuto, "", with, Decision{ctp.Transactional, RealizationNative, ""}, nil},
		{"empty choice is auto", "", OnUnsupportedFail, with, Decision{ctp.Transactional, RealizationNative, ""}, nil},
		{"ledger on KIP-1289 broker is ledger", Choice(RealizationLedger), "", with, Decision{ctp.Transactional, RealizationLedger, ""}, nil},
		{"native on KIP-1289 broker", Choice(RealizationNative), OnUnsupportedFail, with, Decision{ctp.Transactional, RealizationNative, ""}, nil},
		{"native on old broker fails naming the APIs", Choice(RealizationNative), OnUnsupportedFail, without, Decision{},
			[]string{"AddShareAcksToTxn (key 12890)", "TxnShareAcknowledge (key 12891)", "--txn-acks native"}},
		{"native on old broker fails by default", Choice(RealizationNative), "", without, Decision{}, []string{"AddShareAcksToTxn (key 12890)"}},
		{"bad on-unsupported", Choice(RealizationNative), "ignore", with, Decision{}, []string{"--on-unsupported"}},
		{"bad choice", "emulated", "", with, Decision{}, []string{"--txn-acks"}},
		{"native blocked by the client fails saying why", Choice(RealizationNative), OnUnsupportedFallback, blocked, Decision{}, []string{"consumer auto-accepts"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.choice, c.on, c.s)
			if c.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, decision %+v", got)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}

	t.Run("fallback runs explicit with a warning naming the APIs", func(t *testing.T) {
		got, err := Resolve(Choice(RealizationNative), OnUnsupportedFallback, without)
		if err != nil {
			t.Fatal(err)
		}
		if got.Mode != ctp.Explicit || got.Realization != "" {
			t.Errorf("got %+v, want explicit without realization", got)
		}
		for _, w := range append(missing, "explicit", "fallback") {
			if !strings.Contains(got.Warning, w) {
				t.Errorf("warning %q does not mention %q", got.Warning, w)
			}
		}
	})
	t.Run("auto with a blocked client runs ledger and says why", func(t *testing.T) {
		got, err := Resolve(ChoiceAuto, "", blocked)
		if err != nil {
			t.Fatal(err)
		}
		if got.Realization != RealizationLedger || !strings.Contains(got.Warning, "consumer auto-accepts") {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("the missing-API error is an UnsupportedError", func(t *testing.T) {
		_, err := Resolve(Choice(RealizationNative), OnUnsupportedFail, without)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || len(ue.Missing) != 2 {
			t.Errorf("error %v is not an UnsupportedError with both APIs", err)
		}
	})
}

func TestAPIKeysValidate(t *testing.T) {
	if err := DefaultAPIKeys().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if err := (APIKeys{}).Validate(); err != nil {
		t.Errorf("zero keys mean the defaults: %v", err)
	}
	for _, k := range []APIKeys{
		{AddShareAcksToTxn: 25, TxnShareAcknowledge: 12891}, // AddOffsetsToTxn
		{AddShareAcksToTxn: 12890, TxnShareAcknowledge: 12890},
		{AddShareAcksToTxn: -5, TxnShareAcknowledge: 12891},
	} {
		if err := k.Validate(); err == nil {
			t.Errorf("%+v: no error", k)
		}
	}
	vs := DefaultAPIKeys().WithKeys(nil)
	for _, key := range []int16{0, 25, 12890, 12891} {
		if !vs.HasKey(key) {
			t.Errorf("WithKeys lacks key %d", key)
		}
	}
}
