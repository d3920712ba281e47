#!/usr/bin/env bash
# Builds the Kafka image (sharechaos/kafka:<version>, version from the file
# `version`, or the first argument) on the JRE base: Maven copies the broker's
# runtime jars from Maven Central (pom.xml), the Dockerfile adds the start
# script and the Log4j2 configuration. The input hash covers these files, the
# version and the JRE image's id, so a rebuilt base rebuilds Kafka too.
#
#   build.sh            the default version, the one the docker backend runs
#   build.sh 4.3.1      another version: the stock image the KIP-1289 image
#                       (images/kafka-kip1289, same version) is compared with
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"

version=${1:-$(cat "$here/version")}
image=sharechaos/kafka:$version
jre=${SHARECHAOS_JRE_IMAGE:-sharechaos/jre:17}
jre_id=$(docker image inspect -f '{{ .Id }}' "$jre") || {
  echo "kafka: base image $jre is missing: build it first (docker/build-images.sh)" >&2
  exit 1
}
hash=$( (hash_files "$here"/{Dockerfile,pom.xml,log4j2.xml,jolokia-access.xml,start.sh,build.sh}; echo "$version $jre_id $JOLOKIA_VERSION") |
  sha256sum | cut -d' ' -f1)
if up_to_date "$image" "$hash"; then
  report_skipped "$image" "$hash"
  exit 0
fi

start=$(date +%s)
if ! command -v mvn >/dev/null 2>&1; then
  echo "kafka: installing maven"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq maven >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq maven >/dev/null; }
fi
ctx=$(mktemp -d /var/tmp/sharechaos-kafka.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
echo "kafka: fetching Apache Kafka $version jars with Maven"
mvn -B -q -f "$here/pom.xml" -Dkafka.version="$version" \
  dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$ctx/libs" \
  >"$ctx/mvn.log" 2>&1 || { tail -30 "$ctx/mvn.log" >&2; exit 1; }
rm -f "$ctx/mvn.log"
fetch_jolokia_agent "$ctx/agent"
cp "$here"/{Dockerfile,log4j2.xml,jolokia-access.xml,start.sh} "$ctx/"
# The legacy builder (Debian's engine has no buildx) warns on stderr on
# every build; keep the warning out and errors in.
docker build -q --label "$HASH_LABEL=$hash" --build-arg "JRE_IMAGE=$jre" \
  -t "$image" "$ctx" >/dev/null 2>"$ctx/build.err" || { cat "$ctx/build.err" >&2; exit 1; }
report_built "$image" "$start"
