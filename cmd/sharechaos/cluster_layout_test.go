package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClusterUpSSHHostsRefusesWhatItsHostsDoNotOffer: the ssh hosts layout
// takes a stock release, three brokers and PLAINTEXT; anything else is a
// usage error naming the flag, before any container or file exists. An
// unknown layout is named too.
func TestClusterUpSSHHostsRefusesWhatItsHostsDoNotOffer(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--layout", "sideways"}, `--layout "sideways": want proxied or ssh-hosts`},
		{[]string{"--layout", "ssh-hosts", "--kafka-image", "apache/kafka:4.4.0"}, "give --kafka-version, not --kafka-image"},
		{[]string{"--layout", "ssh-hosts", "--brokers", "5"}, "not --brokers 5"},
		{[]string{"--layout", "ssh-hosts", "--broker-security", "sasl_ssl"}, "serves PLAINTEXT only"},
		{[]string{"--layout", "ssh-hosts", "--kip1289-pending-lock", "hold"}, "without KIP-1289"},
		{[]string{"--layout", "ssh-hosts", "--worker-hosts", "-1"}, "--worker-hosts -1"},
		{[]string{"--layout", "ssh-hosts", "--kafka-version", "4.4"}, "--kafka-version"},
	} {
		dir := filepath.Join(t.TempDir(), "env")
		var out, errb bytes.Buffer
		code := mainCode(append([]string{"cluster", "up", "--out", dir}, c.args...), &out, &errb)
		if code != 64 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 64 naming %q", c.args, code, errb.String(), c.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v: %s was made", c.args, dir)
		}
	}
}
