#!/usr/bin/env bash
# CI's test step: every test, the Docker ones required (they fail instead of
# skipping when the engine or the images are missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export SHARECHAOS_REQUIRE_DOCKER=1
make test
