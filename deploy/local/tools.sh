#!/usr/bin/env bash
# Shared settings for the local tool installs. Sourced, never executed.
# Tools live outside the work tree so a fresh clone reuses them and nothing lands in git.
MARQUEE_TOOLS="${MARQUEE_TOOLS:-$HOME/.cache/marquee}"
MARQUEE_STATE="${MARQUEE_STATE:-$HOME/.local/state/marquee}"
NODE_VERSION="${NODE_VERSION:-24.21.0}"
PNPM_VERSION="${PNPM_VERSION:-10.34.9}"
# Kafka's jars from Maven Central (infra.sh install): the broker in kafka-<version>/lib, and the
# kafka-tools jar (TopicCommand, behind deploy/local/kafka/bin/kafka-topics.sh) in
# kafka-tools-<version>/lib, kept apart so installing the tools never touches a running broker's jars.
KAFKA_VERSION="${KAFKA_VERSION:-3.9.1}"
KAFKA_HOME="$MARQUEE_TOOLS/kafka-$KAFKA_VERSION"
KAFKA_TOOLS_HOME="$MARQUEE_TOOLS/kafka-tools-$KAFKA_VERSION"
mkdir -p "$MARQUEE_TOOLS" "$MARQUEE_STATE"
log() { printf '[marquee] %s\n' "$*" >&2; }
