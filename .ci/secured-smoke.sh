#!/usr/bin/env bash
# CI's run on a secured real Kafka: the smoke rows and broker-kill, every ack
# mode, with the brokers' client listener on SASL_SSL (SCRAM-SHA-512) and
# mutual TLS (--broker-security sasl_ssl), every client of the run going
# through it; then a check that neither the SCRAM password (exported here, so
# it is known) nor a private key reached the run directory. Exit: the run's
# verdict, or 1 when a secret was written.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${SHARECHAOS_RUN_DIR:-runs/ci-secured-$(date +%s)}
SHARECHAOS_SASL_PASSWORD=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
export SHARECHAOS_SASL_PASSWORD
SHARECHAOS_RUN_DIR=$out bash .ci/chaos.sh smoke --records 1000 --broker-security sasl_ssl \
  --scenario steady,crash-after-commit,crash-after-acks,broker-kill
if grep -rlF -e "$SHARECHAOS_SASL_PASSWORD" -e "PRIVATE KEY" "$out"; then
  echo "secured smoke: the SCRAM password or a private key was written into the run directory (files above)" >&2
  exit 1
fi
echo "secured smoke: no password and no private key in $out"
