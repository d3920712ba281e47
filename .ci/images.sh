#!/usr/bin/env bash
# CI's step for the container images: builds what is missing or out of date,
# reuses the rest (see docker/build-images.sh). Needs a running engine
# (.ci/docker-engine.sh) and Go; installs debootstrap and Maven when missing.
set -euo pipefail
# Besides the default release (the newest the suite qualifies), the oldest
# it runs (4.2.2), so the tests over releases (TestVersionsDocker, the
# rolling upgrade) run here rather than skip.
here="$(cd "$(dirname "$0")/.." && pwd)"
export KAFKA_VERSIONS="${KAFKA_VERSIONS:-$(cat "$here/docker/images/kafka/version") 4.2.2}"
exec bash "$here/docker/build-images.sh" "$@"
