#!/usr/bin/env bash
# Apache Kafka's bin/kafka-topics.sh, from the Maven Central jars (see kafka-run-class.sh).
exec bash "$(dirname "${BASH_SOURCE[0]}")/kafka-run-class.sh" org.apache.kafka.tools.TopicCommand "$@"
