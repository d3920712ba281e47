package docker

import "testing"

func TestRefusal(t *testing.T) {
	log := "[x] INFO starting\n[y] ERROR Got exception while starting SharedServer\norg.apache.kafka.server.common.serialization.MetadataParseException: bad\n\tat x\n"
	if got := refusal(log); got != "[y] ERROR Got exception while starting SharedServer | org.apache.kafka.server.common.serialization.MetadataParseException: bad" {
		t.Errorf("refusal = %q", got)
	}
	if got := loggedVersion("INFO Kafka version: 4.2.2 (a)\nINFO Kafka version: 4.4.0 (b)"); got != "4.4.0" {
		t.Errorf("loggedVersion = %q, want the last", got)
	}
}
