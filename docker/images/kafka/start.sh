#!/bin/bash
# Starts one Kafka broker from the server.properties the backend copied in.
# The file's place and CLUSTER_ID are those of the apache/kafka image, so the
# backend treats both images alike. The storage is formatted on first start
# only: a restart after a kill keeps its data.
set -euo pipefail
config=${KAFKA_CONFIG:-/mnt/shared/config/server.properties}
: "${CLUSTER_ID:?CLUSTER_ID must name the cluster}"
heap=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}
java_opts=(${heap} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.xml ${KAFKA_OPTS:-}
  -cp '/opt/kafka/libs/*')

data=$(sed -n 's/^log\.dirs=//p' "$config" | cut -d, -f1)
if [ -z "$data" ]; then
  echo "start: $config sets no log.dirs" >&2
  exit 1
fi
if [ ! -f "$data/meta.properties" ]; then
  java "${java_opts[@]}" kafka.tools.StorageTool format \
    --config "$config" --cluster-id "$CLUSTER_ID" --feature share.version=1
fi
exec java "${java_opts[@]}" kafka.Kafka "$config"
