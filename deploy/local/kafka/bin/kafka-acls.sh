#!/usr/bin/env bash
# Apache Kafka's bin/kafka-acls.sh, from the Maven Central jars (see kafka-run-class.sh). In Kafka
# 3.9 its class is still in the broker's jar (kafka_2.13), not in kafka-tools.
exec bash "$(dirname "${BASH_SOURCE[0]}")/kafka-run-class.sh" kafka.admin.AclCommand "$@"
