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
# Formatted at the release's own feature levels (kafka-storage's defaults:
# share.version=1 on 4.2 and 4.3, 2 on 4.4, whose dead-letter queue needs
# it), as a new cluster of that release would be; SHARECHAOS_FORMAT_FEATURES
# ("share.version=1 transaction.version=2") sets levels of one's own.
# A secured client listener's SCRAM user (the docker backend's
# --broker-security sasl_ssl copies its credential here) is created with the
# storage, as kafka-storage format --add-scram does for a new cluster.
scram=()
if [ -f /mnt/shared/config/scram-credentials ]; then
  scram=(--add-scram "$(cat /mnt/shared/config/scram-credentials)")
fi
if [ ! -f "$data/meta.properties" ]; then
  features=()
  for f in ${SHARECHAOS_FORMAT_FEATURES:-}; do
    features+=(--feature "$f")
  done
  java "${java_opts[@]}" kafka.tools.StorageTool format \
    --config "$config" --cluster-id "$CLUSTER_ID" "${features[@]}" "${scram[@]}"
fi
# Kafka's JMX metrics (its request times per API) served read-only over HTTP
# on 8778 for the backend (docker/images/kafka/jolokia-access.xml); only the
# broker's JVM carries the agent, not the format above.
agent=/opt/kafka/agent/jolokia-agent.jar
agent_opts=()
if [ -f "$agent" ]; then
  agent_opts=("-javaagent:$agent=host=0.0.0.0,port=8778,discoveryEnabled=false,policyLocation=file:///opt/kafka/config/jolokia-access.xml")
fi
exec java "${agent_opts[@]}" "${java_opts[@]}" kafka.Kafka "$config"
