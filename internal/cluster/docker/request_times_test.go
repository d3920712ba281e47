package docker

import (
	"encoding/json"
	"strings"
	"testing"
)

// A bulk answer as Jolokia 2 gives it for two parts (trimmed to two APIs).
const jolokiaBulkAnswer = `[
 {"request":{"type":"read"},"status":200,"value":{
   "kafka.network:name=TotalTimeMs,request=Produce,type=RequestMetrics":{"Count":20,"Mean":2.5},
   "kafka.network:name=TotalTimeMs,request=TxnShareAcknowledge,type=RequestMetrics":{"Count":4,"Mean":9.75}}},
 {"request":{"type":"read"},"status":200,"value":{
   "kafka.network:name=RemoteTimeMs,request=Produce,type=RequestMetrics":{"Count":20,"Mean":1.5},
   "kafka.network:name=RemoteTimeMs,request=TxnShareAcknowledge,type=RequestMetrics":{"Count":4,"Mean":9.0}}}
]`

func TestParseRequestTimesSumsMeanTimesCount(t *testing.T) {
	var answers []jolokiaAnswer
	if err := json.Unmarshal([]byte(jolokiaBulkAnswer), &answers); err != nil {
		t.Fatal(err)
	}
	got, err := parseRequestTimes([]string{"TotalTimeMs", "RemoteTimeMs"}, answers)
	if err != nil {
		t.Fatal(err)
	}
	if p := got["Produce"]; p.Count != 20 || p.TotalMs != 50 || p.RemoteMs != 30 {
		t.Errorf("Produce: %+v", p)
	}
	if p := got["TxnShareAcknowledge"]; p.Count != 4 || p.TotalMs != 39 || p.RemoteMs != 36 {
		t.Errorf("TxnShareAcknowledge: %+v", p)
	}
}

func TestParseRequestTimesNamesARefusedRead(t *testing.T) {
	answers := []jolokiaAnswer{{Status: 403, Error: "access denied"}}
	_, err := parseRequestTimes([]string{"TotalTimeMs"}, answers)
	if err == nil || !strings.Contains(err.Error(), "TotalTimeMs") || !strings.Contains(err.Error(), "403") {
		t.Fatalf("want the part and the status named, got %v", err)
	}
}

func TestMbeanKey(t *testing.T) {
	name := "kafka.network:name=TotalTimeMs,request=AddShareAcksToTxn,type=RequestMetrics"
	if got := mbeanKey(name, "request"); got != "AddShareAcksToTxn" {
		t.Errorf("request: %q", got)
	}
	if got := mbeanKey(name, "version"); got != "" {
		t.Errorf("version: %q", got)
	}
	if got := mbeanKey("no-domain", "request"); got != "" {
		t.Errorf("no domain: %q", got)
	}
}
