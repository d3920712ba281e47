#!/usr/bin/env bash
# Kafka on hosts reached only by ssh (sharechaos cluster up --layout
# ssh-hosts: three broker hosts with Kafka under systemd, two worker hosts),
# every fault by examples/hooks/ssh-systemd.yaml, the workers spread over the
# worker hosts through ssh; the rows in explicit and transactional mode.
# Then: every hook in the run's hooks.log went through ssh, and nothing of
# ours is left on any host (no sharechaos process, no iptables rule, no
# netdelay). The hosts are removed at the end, also on failure or Ctrl-C.
#
#   .ci/ssh-hosts.sh                     # the full list, 3000 records a cell (make ssh-hosts)
#   SHARECHAOS_SSH_ROWS=steady,broker-kill SHARECHAOS_SSH_RECORDS=1000 .ci/ssh-hosts.sh
#
# Exit: the run's verdict, or 1 when a hook bypassed ssh or something was
# left on a host.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${SHARECHAOS_SSH_ROWS:-steady,crash-after-commit,crash-after-acks,zombie-fenced,broker-kill,data-leader-kill,share-state-leader-kill,partition,broker-pause,link-cut,rolling-restart,slow-network}
records=${SHARECHAOS_SSH_RECORDS:-3000}
seed=${SHARECHAOS_SEED:-$(date +%s)}
out=${SHARECHAOS_RUN_DIR:-runs/ssh-hosts-$(date +%s)}
make -s build
bin=bin/sharechaos
env=$(mktemp -d /tmp/sharechaos-ssh-hosts.XXXXXX)
down() {
  "$bin" cluster down "$env" >/dev/null 2>&1 || true
  rm -rf "$env"
}
trap down EXIT
trap 'exit 130' INT TERM
"$bin" cluster up --layout ssh-hosts --out "$env"
set +e
"$bin" run --backend external --bootstrap "$(cat "$env/bootstrap")" --fault-hooks "$env/hooks.yaml" \
  --worker-exec "$(cat "$env/worker-exec")" --worker-hosts "$(cat "$env/worker-hosts")" \
  --worker-binary /usr/local/bin/sharechaos \
  --scenario "$rows" --mode explicit,transactional --records "$records" --seed "$seed" --out "$out"
code=$?
set -e
if [ -f "$out/hooks.log" ]; then
  echo "ssh hosts: hooks run: $(grep -cE '^[0-9]{4}-' "$out/hooks.log") ($(grep -oE '^[^ ]+ [a-z]+' "$out/hooks.log" | cut -d' ' -f2 | sort | uniq -c | tr -s ' ' | tr '\n' ','))"
  if grep '^  command: ' "$out/hooks.log" | grep -v -- "ssh -F "; then
    echo "ssh hosts: the hooks above did not go through ssh" >&2
    code=1
  fi
  # Where latency ran through netdelay, each broker host's heal printed how
  # many packets it held: the delay acted, not only its hook.
  if grep -q 'SHARECHAOS_ROLE=netdelay' "$out/hooks.log"; then
    held=$(grep -oE '(kafka-[0-9]+): netdelay: held [1-9][0-9]*' "$out/hooks.log" | cut -d: -f1 | sort -u | wc -l)
    echo "ssh hosts: netdelay held packets on $held of 3 broker hosts"
    [ "$held" = 3 ] || code=1
  fi
fi
for h in kafka-1 kafka-2 kafka-3 $(tr ',' ' ' <"$env/worker-hosts"); do
  left=$(ssh -F "$env/ssh_config" "$h" 'pgrep -a -x sharechaos; iptables -S | grep -E "NFQUEUE|^-A SHARECHAOS"; systemctl is-active --quiet sharechaos-netdelay && echo "netdelay running"; true')
  if [ -n "$left" ]; then
    echo "ssh hosts: left on $h after the run:" >&2
    echo "$left" >&2
    code=1
  fi
done
echo "ssh hosts: run directory $out, exit $code"
exit "$code"
