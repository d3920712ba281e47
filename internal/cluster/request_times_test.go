package cluster

import (
	"strings"
	"testing"
)

func TestRequestTimesSinceIsTheRunsOwnRequests(t *testing.T) {
	before := RequestTimes{
		"Produce": {Count: 10, TotalMs: 100, RemoteMs: 60},
		"EndTxn":  {Count: 4, TotalMs: 20},
	}
	after := RequestTimes{
		"Produce":             {Count: 30, TotalMs: 400, RemoteMs: 260},
		"EndTxn":              {Count: 4, TotalMs: 20},
		"TxnShareAcknowledge": {Count: 5, TotalMs: 50, RemoteMs: 45},
	}
	got, err := after.Since(before)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("want Produce and TxnShareAcknowledge only (EndTxn served nothing), got %v", got)
	}
	if p := got["Produce"]; p.Count != 20 || p.TotalMs != 300 || p.RemoteMs != 200 {
		t.Errorf("Produce: %+v", p)
	}
	if p := got["TxnShareAcknowledge"]; p.Count != 5 || p.RemoteMs != 45 {
		t.Errorf("TxnShareAcknowledge: %+v", p)
	}
}

func TestRequestTimesSinceRefusesARestartedBroker(t *testing.T) {
	before := RequestTimes{"Produce": {Count: 10, TotalMs: 100}}
	after := RequestTimes{"Produce": {Count: 3, TotalMs: 30}}
	_, err := after.Since(before)
	if err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Fatalf("want an error naming the restart, got %v", err)
	}
}

func TestRequestTimesAddSumsBrokers(t *testing.T) {
	sum := RequestTimes{}
	sum.Add(RequestTimes{"Produce": {Count: 1, TotalMs: 2, LocalMs: 1}})
	sum.Add(RequestTimes{"Produce": {Count: 3, TotalMs: 4, LocalMs: 2}, "EndTxn": {Count: 1, TotalMs: 5}})
	if p := sum["Produce"]; p.Count != 4 || p.TotalMs != 6 || p.LocalMs != 3 {
		t.Errorf("Produce: %+v", p)
	}
	if sum["EndTxn"].Count != 1 {
		t.Errorf("EndTxn: %+v", sum["EndTxn"])
	}
}
