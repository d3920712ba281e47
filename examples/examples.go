// Package examples carries into the binary the ready-made files that the
// tool runs itself: `sharechaos cluster up --layout ssh-hosts` drives its
// hosts with examples/hooks/ssh-systemd.yaml as it is written here, so the
// file users copy is the file that was run.
package examples

import _ "embed"

// SSHSystemdHooks is examples/hooks/ssh-systemd.yaml.
//
//go:embed hooks/ssh-systemd.yaml
var SSHSystemdHooks string
