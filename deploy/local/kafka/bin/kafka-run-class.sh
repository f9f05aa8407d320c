#!/usr/bin/env bash
# Runs one of Kafka's command-line tools (a Java class) from the jars `infra.sh install` lays out
# (deploy/local/tools.sh: the broker's in $KAFKA_HOME/lib, kafka-tools in $KAFKA_TOOLS_HOME/lib).
# The local Kafka comes from Maven Central, not Apache's tarball, so it has no bin/*.sh; the
# kafka-topics.sh, kafka-configs.sh and kafka-acls.sh beside this file stand in for Apache's, with the same
# arguments. Used to run the Helm chart's topic and ACL Job scripts against the local broker.
#   kafka-run-class.sh <main class> [args...]
# Environment: KAFKA_HEAP_OPTS (-Xmx256m), MARQUEE_TOOLS, KAFKA_VERSION.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../tools.sh
. "$here/../../tools.sh"
for dir in "$KAFKA_HOME/lib" "$KAFKA_TOOLS_HOME/lib"; do
  [ -d "$dir" ] || { log "error: $dir missing: run bash deploy/local/infra.sh install"; exit 1; }
done
# Warnings and errors to stderr; stdout stays the tool's own output (scripts parse it).
# shellcheck disable=SC2086
exec java ${KAFKA_HEAP_OPTS:--Xmx256m} -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
  -Dlog4j.configuration="file:$here/../tools-log4j.properties" \
  -cp "$KAFKA_TOOLS_HOME/lib/*:$KAFKA_HOME/lib/*" "$@"
