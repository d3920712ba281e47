# Shared by the image build scripts (sourced, not run): input hashes, the
# skip-when-built check and timing. An image carries the hash of its inputs in
# the label sharechaos.input-hash; a build is skipped when the image with that
# tag already carries the hash it would get.

HASH_LABEL=sharechaos.input-hash

# image_hash IMAGE: the input hash an existing image carries, or "" if absent.
image_hash() {
  docker image inspect -f "{{ index .Config.Labels \"$HASH_LABEL\" }}" "$1" 2>/dev/null || true
}

# up_to_date IMAGE HASH: true when IMAGE exists and was built from HASH.
up_to_date() {
  [ -n "$2" ] && [ "$(image_hash "$1")" = "$2" ]
}

# hash_files FILE...: one hash over the names and contents of FILEs.
hash_files() {
  local f
  for f in "$@"; do
    printf '%s\n' "$(basename "$f")"
    cat "$f"
  done | sha256sum | cut -d' ' -f1
}

# image_size IMAGE: the image's size in MB, for the build summary.
image_size() {
  local bytes
  bytes=$(docker image inspect -f '{{ .Size }}' "$1")
  echo "$((bytes / 1000000)) MB"
}

# report_built IMAGE START: one summary line for an image just built.
report_built() {
  echo "images: built $1 in $(( $(date +%s) - $2 ))s ($(image_size "$1"))"
}

# report_skipped IMAGE HASH: one summary line for an image left as it was.
report_skipped() {
  echo "images: skipped $1, inputs unchanged (hash ${2:0:12}, $(image_size "$1"))"
}

# The Jolokia JVM agent in our Kafka images: it serves the broker's JMX over
# HTTP, read-only (jolokia-access.xml), so the docker backend can read Kafka's
# own request metrics per API (internal/cluster/docker/request_times.go).
JOLOKIA_VERSION=2.4.2

# fetch_jolokia_agent DIR: the agent from Maven Central as DIR/jolokia-agent.jar.
fetch_jolokia_agent() {
  local log
  log=$(mktemp)
  mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="org.jolokia:jolokia-agent-jvm:$JOLOKIA_VERSION:jar:javaagent" \
    -DoutputDirectory="$1" >"$log" 2>&1 || { tail -30 "$log" >&2; rm -f "$log"; return 1; }
  rm -f "$log"
  mv "$1/jolokia-agent-jvm-$JOLOKIA_VERSION-javaagent.jar" "$1/jolokia-agent.jar"
}
