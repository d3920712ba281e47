#!/usr/bin/env bash
# Start a Docker engine when none answers: Debian's docker.io, dockerd in the
# background, logging to a file. Idempotent: does nothing when `docker info` answers.
set -euo pipefail
log=${DOCKERD_LOG:-/var/log/sharechaos-dockerd.log}
if docker info >/dev/null 2>&1; then
  echo "docker-engine: an engine already answers"
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker-engine: installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq docker.io >/dev/null
fi
echo "docker-engine: starting dockerd (log: $log)"
nohup dockerd >"$log" 2>&1 &
for i in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "docker-engine: ready after ${i}s"
    exit 0
  fi
  sleep 1
done
echo "docker-engine: dockerd did not answer within 60s; last lines of $log:" >&2
tail -20 "$log" >&2
exit 1
