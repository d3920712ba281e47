#!/usr/bin/env bash
# Builds the Kafka image with KIP-1289 (sharechaos/kafka-kip1289:<version>,
# version from the file `version`) on the JRE base: kafka-kip1289/build.sh
# fetches the release jars and the sources of the hooked files from Maven
# Central, patches and compiles them with our classes into kip1289.jar; the
# Dockerfile adds start.sh and the stock image's Log4j2 configuration. The
# input hash covers everything that goes in (our Java sources, message specs,
# the patch, the pom, these files) and the JRE image's id, so the image is
# rebuilt exactly when one of them changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
src="$root/kafka-kip1289"
# shellcheck source=../lib.sh
. "$here/../lib.sh"

version=$(cat "$here/version")
image=sharechaos/kafka-kip1289:$version
jre=${SHARECHAOS_JRE_IMAGE:-sharechaos/jre:17}
jre_id=$(docker image inspect -f '{{ .Id }}' "$jre") || {
  echo "kafka-kip1289: base image $jre is missing: build it first (docker/build-images.sh)" >&2
  exit 1
}
mapfile -t inputs < <(find "$src" -type f ! -path '*/target/*' | LC_ALL=C sort)
hash=$( (hash_files "$here"/{Dockerfile,start.sh,version,build.sh} "$here"/../kafka/{log4j2.xml,jolokia-access.xml} "${inputs[@]}"
  echo "$jre_id $JOLOKIA_VERSION") | sha256sum | cut -d' ' -f1)
if up_to_date "$image" "$hash"; then
  report_skipped "$image" "$hash"
  exit 0
fi

start=$(date +%s)
# A fresh machine has the JDK; Maven comes from Debian's packages if missing,
# as for the stock image.
if ! command -v mvn >/dev/null 2>&1; then
  echo "kafka-kip1289: installing maven"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq maven >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq maven >/dev/null; }
fi
ctx=$(mktemp -d /var/tmp/sharechaos-kafka-kip1289.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/kip1289"
bash "$src/build.sh" "$version" "$ctx/out"
mv "$ctx/out/libs" "$ctx/libs"
mv "$ctx/out/kip1289.jar" "$ctx/kip1289/"
fetch_jolokia_agent "$ctx/agent"
cp "$here"/{Dockerfile,start.sh} "$here"/../kafka/{log4j2.xml,jolokia-access.xml} "$ctx/"
# The legacy builder (Debian's engine has no buildx) warns on stderr on
# every build; keep the warning out and errors in.
docker build -q --label "$HASH_LABEL=$hash" --build-arg "JRE_IMAGE=$jre" \
  -t "$image" "$ctx" >/dev/null 2>"$ctx/build.err" || { cat "$ctx/build.err" >&2; exit 1; }
report_built "$image" "$start"
