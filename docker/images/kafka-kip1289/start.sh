#!/bin/bash
# Starts one Kafka broker with KIP-1289, as the stock image's start.sh starts
# one without it (same config file, CLUSTER_ID and formatting), with two
# differences: kip1289.jar comes first on the classpath, so its hooked Kafka
# classes replace the release jars' copies; and the KIP-1289 API keys named in
# server.properties are passed to the JVM as system properties, because Kafka's
# ApiKeys enum is built when its class loads, before the broker reads its
# configuration (the broker refuses to start if the two disagree).
set -euo pipefail
config=${KAFKA_CONFIG:-/mnt/shared/config/server.properties}
: "${CLUSTER_ID:?CLUSTER_ID must name the cluster}"
heap=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}

kip_props=()
for key in kip1289.add.share.acks.to.txn.api.key kip1289.txn.share.acknowledge.api.key; do
  value=$(sed -n "s/^${key//./\\.}=//p" "$config" | tail -1)
  if [ -n "$value" ]; then
    kip_props+=("-D$key=$value")
  fi
done

java_opts=(${heap} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.xml "${kip_props[@]}" ${KAFKA_OPTS:-}
  -cp '/opt/kafka/kip1289/kip1289.jar:/opt/kafka/libs/*')

data=$(sed -n 's/^log\.dirs=//p' "$config" | cut -d, -f1)
if [ -z "$data" ]; then
  echo "start: $config sets no log.dirs" >&2
  exit 1
fi
# A secured client listener's SCRAM user (the docker backend's
# --broker-security sasl_ssl copies its credential here) is created with the
# storage, as kafka-storage format --add-scram does for a new cluster.
scram=()
if [ -f /mnt/shared/config/scram-credentials ]; then
  scram=(--add-scram "$(cat /mnt/shared/config/scram-credentials)")
fi
if [ ! -f "$data/meta.properties" ]; then
  java "${java_opts[@]}" kafka.tools.StorageTool format \
    --config "$config" --cluster-id "$CLUSTER_ID" --feature share.version=1 "${scram[@]}"
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
