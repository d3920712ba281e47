package docker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/examples"
	"github.com/sharechaos/sharechaos/internal/cluster/external"
)

// TestSSHHostsHooksAreTheExampleWithTheirConfig: the ssh hosts' hooks file
// is examples/hooks/ssh-systemd.yaml with -F CONFIG after each ssh and
// nothing else changed; without netem latency and heal use netdelay
// (NFQUEUE) instead of tc's netem, and heal still does what the example's
// does. Both load as hooks files.
func TestSSHHostsHooksAreTheExampleWithTheirConfig(t *testing.T) {
	cfg := "/tmp/env dir/ssh_config"
	for _, netem := range []bool{true, false} {
		text := sshHostsHooks(cfg, netem)
		p := filepath.Join(t.TempDir(), "hooks.yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := external.LoadHooks(p)
		if err != nil {
			t.Fatalf("netem=%v: %v\n%s", netem, err, text)
		}
		latency, heal := h.Hooks[external.HookLatency].Command, h.Hooks[external.HookHeal].Command
		if usesNetdelay := strings.Contains(latency, "SHARECHAOS_ROLE=netdelay") && strings.Contains(latency, "NFQUEUE"); usesNetdelay == netem {
			t.Errorf("netem=%v: latency hook: %s", netem, latency)
		}
		if !netem && (!strings.Contains(heal, "iptables -F SHARECHAOS") || !strings.Contains(heal, "tc qdisc del dev eth0 root") ||
			!strings.Contains(heal, "systemctl stop sharechaos-netdelay") || !strings.Contains(heal, "iptables -D OUTPUT -o eth0 -p tcp -m multiport --ports 9092,9093,9094 -j NFQUEUE")) {
			t.Errorf("heal without netem does not undo both the example's faults and netdelay: %s", heal)
		}
		for _, name := range []external.HookName{external.HookKill, external.HookStart, external.HookRestart, external.HookPause,
			external.HookResume, external.HookIsolate, external.HookDisconnect, external.HookLatency, external.HookHeal} {
			hk := h.Hooks[name]
			if !strings.HasPrefix(strings.TrimSpace(hk.Command), "ssh -F '"+cfg+"' kafka-") &&
				!strings.Contains(hk.Command, "ssh -F '"+cfg+"' $h") {
				t.Errorf("netem=%v: hook %s does not ssh with the config: %s", netem, name, hk.Command)
			}
			if n := strings.Count(hk.Command, "ssh "); n != strings.Count(hk.Command, "ssh -F '"+cfg+"' ") {
				t.Errorf("netem=%v: hook %s has an ssh without the config: %s", netem, name, hk.Command)
			}
		}
		// Nothing but the -F changed: undo it, and the example's own
		// lines (not its comments) come back.
		undone := strings.ReplaceAll(text, "ssh -F '"+cfg+"' ", "ssh ")
		block := ""
		for _, line := range strings.Split(examples.SSHSystemdHooks, "\n") {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    ") {
				block = strings.TrimSpace(line)
			}
			if strings.HasPrefix(strings.TrimSpace(line), "#") || !netem && (strings.HasPrefix(block, "latency:") || strings.HasPrefix(block, "heal:")) {
				continue
			}
			if !strings.Contains(undone, line) {
				t.Errorf("netem=%v: the example's line %q is not in the hooks file", netem, line)
			}
		}
	}
}

// TestSSHHostWiringUsesTheExamplesPorts: clients at the host's address on
// 9092, brokers and controllers by host name on 9093 and 9094 (what the
// example's isolate drops), the quorum over the three broker hosts.
func TestSSHHostWiringUsesTheExamplesPorts(t *testing.T) {
	w := sshHostWiring(2, "172.18.0.3")
	for k, want := range map[string]string{
		"advertised.listeners":     "CLIENT://172.18.0.3:9092,INTERNAL://kafka-2:9093,CONTROLLER://kafka-2:9094",
		"controller.quorum.voters": "1@kafka-1:9094,2@kafka-2:9094,3@kafka-3:9094",
		"node.id":                  "2",
	} {
		if w[k] != want {
			t.Errorf("%s = %q, want %q", k, w[k], want)
		}
	}
	for k := range w {
		if !Wired(k) {
			t.Errorf("%s is wired on ssh hosts but --broker-config may override it", k)
		}
	}
}
