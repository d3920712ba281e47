#!/usr/bin/env bash
# Builds and tests the Java CTP worker (issue 24) with Maven, from Maven
# Central through Maven's own settings (no repository is named here), against
# the kafka-clients version the docker image runs (docker/images/kafka/version),
# and puts the jar at build/sharechaos-java-worker.jar, where --client java
# finds it. Prints the build time. Installs Debian's maven and JDK when absent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
start=$(date +%s)
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "java-worker: installing maven and a JDK"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq maven openjdk-17-jdk-headless >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq maven openjdk-17-jdk-headless >/dev/null; }
fi
version=$(cat "$root/docker/images/kafka/version")
mkdir -p "$root/build"
log="$root/build/java-worker.log"
if ! mvn -B -ntp -f "$here/pom.xml" -Dkafka.version="$version" package >"$log" 2>&1; then
  grep -E "ERROR|FAIL|Tests run" "$log" | head -40 >&2
  echo "java-worker: build failed, full log in $log" >&2
  exit 1
fi
# Surefire's summary (the closing "Tests run:" line) for whoever reads the output.
grep -E "^\[(INFO|WARNING|ERROR)\] Tests run:" "$log" | tail -1
cp "$here/target/sharechaos-java-worker.jar" "$root/build/sharechaos-java-worker.jar"
echo "java-worker: built build/sharechaos-java-worker.jar (kafka-clients $version) in $(($(date +%s) - start))s"
