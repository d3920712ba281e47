#!/usr/bin/env bash
# Builds the ssh host image, sharechaos/sshhost:<version>, on our Kafka image
# of that release (sharechaos/kafka:<version>, built first): Debian with
# systemd, sshd, sudo, iptables and tc, Kafka as the unit kafka.service. The
# input hash covers these files and the Kafka image, so an unchanged tree
# skips the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"

version=${1:?usage: build.sh KAFKA_VERSION}
kafka=sharechaos/kafka:$version
image=sharechaos/sshhost:$version
start=$(date +%s)
kafka_id=$(docker image inspect -f '{{.Id}}' "$kafka" 2>/dev/null) ||
  { echo "sshhost: $kafka is missing (bash docker/images/kafka/build.sh $version)" >&2; exit 1; }
hash=$( (hash_files "$here"/{Dockerfile,kafka.service,sshd.conf,build.sh}; echo "$kafka_id") |
  sha256sum | cut -d' ' -f1)
if up_to_date "$image" "$hash"; then
  report_skipped "$image" "$hash"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
docker build -q --label "$HASH_LABEL=$hash" --build-arg "KAFKA_IMAGE=$kafka" -t "$image" "$here" >"$log" 2>&1 ||
  { tail -30 "$log" >&2; exit 1; }
report_built "$image" "$start"
