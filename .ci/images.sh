#!/usr/bin/env bash
# CI's step for the container images: builds what is missing or out of date,
# reuses the rest (see docker/build-images.sh). Needs a running engine
# (.ci/docker-engine.sh) and Go; installs debootstrap and Maven when missing.
set -euo pipefail
exec bash "$(cd "$(dirname "$0")/.." && pwd)/docker/build-images.sh" "$@"
