#!/usr/bin/env bash
# Builds every container image the docker backend runs, offline (no image
# registry needed): the JRE base, Apache Kafka on it, Apache Kafka with
# KIP-1289 (images/kafka-kip1289) and the stock image of that same version to
# compare it with, and our toxiproxy; and the tool itself as an image
# (images/sharechaos); and each stock release as an ssh host (images/sshhost).
# Idempotent: an image whose inputs did not change is skipped (see
# images/lib.sh). Prints what it built or skipped and how long it took.
#
# KAFKA_VERSIONS="4.2.2 4.3.2 4.4.0" builds our stock image of each of those
# Apache Kafka releases (sharechaos/kafka:<version>, what `sharechaos run
# --kafka-version` runs) instead of only the default one (images/kafka/version).
#
# Users with a registry may run other images instead: when
# SHARECHAOS_KAFKA_IMAGE or SHARECHAOS_TOXIPROXY_IMAGE names an image that is
# not ours, that image is not built here (the backend runs the named one).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)

# Checked before anything is built: a bad version builds nothing.
versions=${KAFKA_VERSIONS:-$(cat "$here/images/kafka/version")}
for v in ${versions//,/ }; do
  if ! [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]]; then
    echo "images: KAFKA_VERSIONS: \"$v\" is not a Kafka release (want e.g. 4.2.2 4.4.0)" >&2
    exit 64
  fi
done

if ! docker info >/dev/null 2>&1; then
  echo "images: no Docker engine answers (start one: bash .ci/docker-engine.sh)" >&2
  exit 1
fi

kafka_default=sharechaos/kafka:$(cat "$here/images/kafka/version")
toxiproxy_default=sharechaos/toxiproxy:2.12.0

# The JRE base: the Kafka images' and the tool's.
bash "$here/images/jre/build.sh"
if [ "${SHARECHAOS_KAFKA_IMAGE:-$kafka_default}" != "$kafka_default" ]; then
  echo "images: Kafka image is $SHARECHAOS_KAFKA_IMAGE (SHARECHAOS_KAFKA_IMAGE): not building kafka or kafka-kip1289"
else
  for v in ${versions//,/ }; do
    bash "$here/images/kafka/build.sh" "$v"
    # The same release on a host reached by ssh, under systemd
    # (`cluster up --layout ssh-hosts`).
    bash "$here/images/sshhost/build.sh" "$v"
  done
  bash "$here/images/kafka/build.sh" "$(cat "$here/images/kafka-kip1289/version")"
  bash "$here/images/kafka-kip1289/build.sh"
fi
if [ "${SHARECHAOS_TOXIPROXY_IMAGE:-$toxiproxy_default}" != "$toxiproxy_default" ]; then
  echo "images: toxiproxy image is $SHARECHAOS_TOXIPROXY_IMAGE (SHARECHAOS_TOXIPROXY_IMAGE): not building it"
else
  bash "$here/images/toxiproxy/build.sh"
fi
# The tool itself (sharechaos/sharechaos): the CLI, the reference broker and
# the Java worker, the CLI as the entry point.
bash "$here/images/sharechaos/build.sh"
# A rebuilt image leaves its predecessor untagged; remove those (ours only:
# dangling images that carry our input-hash label).
docker image prune -f --filter "label=sharechaos.input-hash" >/dev/null
echo "images: done in $(( $(date +%s) - start ))s"
