#!/usr/bin/env bash
# Builds the toxiproxy image (sharechaos/toxiproxy:2.12.0): cmd/sharechaos-toxiproxy
# as a static binary in FROM scratch. The input hash is the binary's own
# (a -trimpath build is reproducible), so any change to the server, to a
# toxic it registers or to a module version rebuilds the image, and nothing
# else does. Go's build cache makes the hash cheap when nothing changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"

image=sharechaos/toxiproxy:2.12.0
start=$(date +%s)
ctx=$(mktemp -d /var/tmp/sharechaos-toxiproxy.XXXXXX)
trap 'rm -rf "$ctx"' EXIT

(cd "$repo" && CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -ldflags "-s -w -X github.com/Shopify/toxiproxy/v2.Version=2.12.0" \
  -o "$ctx/toxiproxy" ./cmd/sharechaos-toxiproxy)
cp "$here/Dockerfile" "$ctx/"
hash=$(hash_files "$ctx/toxiproxy" "$ctx/Dockerfile")
if up_to_date "$image" "$hash"; then
  report_skipped "$image" "$hash"
  exit 0
fi
docker build -q --label "$HASH_LABEL=$hash" -t "$image" "$ctx" >/dev/null 2>"$ctx/build.err" ||
  { cat "$ctx/build.err" >&2; exit 1; }
report_built "$image" "$start"
