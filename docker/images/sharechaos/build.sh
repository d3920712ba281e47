#!/usr/bin/env bash
# Builds the tool's image, sharechaos/sharechaos:<revision> (and :latest): the
# CLI and the reference broker as static Go binaries, the Java worker's jar,
# on the JRE base, with the CLI as the entry point:
#
#   docker run --rm sharechaos/sharechaos run --backend embedded --profile smoke
#   docker run --rm --network host sharechaos/sharechaos run --backend external --bootstrap HOST:PORT,...
#
# The input hash covers the three files, the Dockerfile and the base image, so
# an unchanged tree skips the build (Go's build cache and the jar's make
# target make the hash cheap).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"

jre=${SHARECHAOS_JRE_IMAGE:-sharechaos/jre:17}
rev=$(cd "$repo" && git rev-parse --short=12 HEAD 2>/dev/null || echo dev)
image=sharechaos/sharechaos
start=$(date +%s)
ctx=$(mktemp -d /var/tmp/sharechaos-tool.XXXXXX)
trap 'rm -rf "$ctx"' EXIT

GO=${GO:-go}
(cd "$repo" && GO=$GO bash refbroker/build.sh tree >/dev/null)
(cd "$repo/refbroker" && CGO_ENABLED=0 "$GO" build -trimpath -buildvcs=false -o "$ctx/sharechaos-refbroker" .)
(cd "$repo" && CGO_ENABLED=0 "$GO" build -trimpath -buildvcs=false -ldflags "-X main.revision=$rev" \
  -o "$ctx/sharechaos" ./cmd/sharechaos)
(cd "$repo" && make -s build/sharechaos-java-worker.jar >/dev/null)
cp "$repo/build/sharechaos-java-worker.jar" "$here/Dockerfile" "$ctx/"
hash=$( { hash_files "$ctx/sharechaos" "$ctx/sharechaos-refbroker" "$ctx/sharechaos-java-worker.jar" "$ctx/Dockerfile";
  docker image inspect -f '{{.Id}}' "$jre"; } | sha256sum | cut -d' ' -f1)
if up_to_date "$image:$rev" "$hash"; then
  report_skipped "$image:$rev" "$hash"
  exit 0
fi
docker build -q --build-arg JRE_IMAGE="$jre" --label "$HASH_LABEL=$hash" -t "$image:$rev" -t "$image:latest" "$ctx" >/dev/null 2>"$ctx/build.err" ||
  { cat "$ctx/build.err" >&2; exit 1; }
report_built "$image:$rev" "$start"
