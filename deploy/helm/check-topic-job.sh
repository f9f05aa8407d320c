#!/usr/bin/env bash
# Runs the Helm chart's topic Job (templates/topics-job.yaml) against a real broker: the local one
# of deploy/local/infra.sh (KAFKA_BROKERS), with deploy/local/kafka/bin standing in for Apache's
# kafka-topics.sh and kafka-configs.sh (the same Java classes, from Maven Central).
#
# The script is taken from `helm template` as rendered, with values naming a few topics of a prefix
# unique to this run (never a catalog topic other tests use), then run with the Job container's own
# command and environment. It asserts that the script
#   1. creates the missing topics (and the .dlq twin) with the values' partitions and configs,
#   2. passes on topics that are right, and restores a retention changed behind its back,
#   3. fails, naming the topic, when an existing topic has another partition count than the values.
# The topics are deleted at the end, whatever the outcome.
#
# Not part of check.sh, which stays offline (no broker, no Java): scripts/test.mjs runs this after
# the integration tier, with the infrastructure .ci/run starts; needs `infra.sh install` (the jars).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
chart="$here/marquee"
bin="$repo/deploy/local/kafka/bin"
: "${KAFKA_BROKERS:?KAFKA_BROKERS is not set: bash deploy/local/infra.sh start && eval \"\$(bash deploy/local/infra.sh env)\"}"
command -v helm >/dev/null || eval "$(bash "$repo/deploy/local/install-k8s-tools.sh" --env)"
broker="${KAFKA_BROKERS%%,*}"

work="$(mktemp -d)"
prefix="chart-check-$(date +%s)-$$"
failures=0
pass() { printf '[topic-job] ok   %s\n' "$*"; }
fail() { printf '[topic-job] FAIL %s\n' "$*" >&2; failures=$((failures + 1)); }
topics() { "$bin/kafka-topics.sh" --bootstrap-server "$broker" "$@"; }
cleanup() {
  # Only this run's topics: the regular expression is the unique prefix.
  topics --delete --if-exists --topic "$prefix-.*" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The Job's script and environment, as helm renders them for these topics.
render() { # out-dir topics-json
  mkdir -p "$1"
  helm template marquee "$chart" --namespace marquee --show-only templates/topics-job.yaml \
    --set secrets.existingSecret=unused --set "global.kafkaBrokers=$KAFKA_BROKERS" \
    --set topicJob.replicationFactor=1 --set topicJob.waitSeconds=30 --set "topicJob.kafkaBinDir=$bin" \
    --set topicJob.dlq.partitions=1 --set topicJob.dlq.retentionMs=3600000 \
    --set-json "topics=$2" >"$1/job.yaml"
  python3 - "$1" <<'PY'
import shlex, sys, yaml
out = sys.argv[1]
job = yaml.safe_load(open(f"{out}/job.yaml"))
c = job["spec"]["template"]["spec"]["containers"][0]
assert c["command"] == ["/bin/sh", "-ec"], c["command"]
open(f"{out}/script.sh", "w").write(c["args"][0])
with open(f"{out}/env.sh", "w") as f:
    for e in c["env"]:
        f.write(f"export {e['name']}={shlex.quote(e['value'])}\n")
PY
}
run_job() { # dir -> exit status; output in dir/out
  # The container's environment, but LOG_DIR under this run's scratch directory.
  (set -a; . "$1/env.sh"; LOG_DIR="$1/logs"; exec /bin/sh -ec "$(cat "$1/script.sh")") >"$1/out" 2>&1
}
config_of() { # topic key -> the topic's value of key
  "$bin/kafka-configs.sh" --bootstrap-server "$broker" --describe --entity-type topics --entity-name "$1" \
    | sed -n "s/^ *$2=\([^ ]*\) .*/\1/p"
}
partitions_of() { topics --describe --topic "$1" | sed -n 's/.*PartitionCount: *\([0-9][0-9]*\).*/\1/p' | head -n 1; }

compacted="$prefix-compacted" plain="$prefix-plain"
render "$work/good" "[{\"name\":\"$compacted\",\"compacted\":true,\"retentionMs\":-1,\"partitions\":3,\"dlq\":false},{\"name\":\"$plain\",\"retentionMs\":7200000,\"partitions\":2}]"
grep -q "ensure $plain 2 " "$work/good/script.sh" || { echo "[topic-job] the rendered script has no ensure line for $plain" >&2; exit 1; }

# 1. nothing exists yet: the script creates every topic with the values' partitions and configs
if run_job "$work/good"; then pass "script exits 0 on a broker without the topics"
else fail "script failed creating the topics: $(tail -n 5 "$work/good/out")"; fi
grep -q '^3 topics provisioned$' "$work/good/out" && pass "script reports 3 topics (2 + one .dlq twin)" \
  || fail "script did not report 3 topics: $(tail -n 3 "$work/good/out")"
check_topic() { # name partitions cleanup.policy retention.ms
  local got
  got="$(partitions_of "$1"),$(config_of "$1" cleanup.policy),$(config_of "$1" retention.ms),$(config_of "$1" min.insync.replicas)"
  if [ "$got" = "$2,$3,$4,1" ]; then pass "$1: $2 partitions, cleanup.policy=$3, retention.ms=$4, min.insync.replicas=1"
  else fail "$1: partitions,cleanup.policy,retention.ms,min.insync.replicas = $got, want $2,$3,$4,1"; fi
}
check_topic "$compacted" 3 compact -1
check_topic "$plain" 2 delete 7200000
check_topic "$plain.dlq" 1 delete 3600000
if topics --list | grep -qx "$compacted.dlq"; then fail "$compacted.dlq created although its dlq is false"
else pass "no .dlq twin where the values say dlq: false"; fi

# 2. the topics exist and are right: the script passes again; a retention changed by hand is restored
"$bin/kafka-configs.sh" --bootstrap-server "$broker" --alter --entity-type topics --entity-name "$plain" \
  --add-config retention.ms=60000 >/dev/null
[ "$(config_of "$plain" retention.ms)" = 60000 ] || fail "could not change $plain's retention for the test"
if run_job "$work/good"; then pass "script exits 0 on topics that exist"
else fail "script failed on existing topics: $(tail -n 5 "$work/good/out")"; fi
grep -q "already exists" "$work/good/out" && fail "script complained about existing topics: $(grep -m1 'already exists' "$work/good/out")"
check_topic "$plain" 2 delete 7200000

# 3. an existing topic with another partition count than the values: the script fails on it
wrong="$prefix-wrong"
topics --create --topic "$wrong" --partitions 1 --replication-factor 1 >/dev/null
render "$work/wrong" "[{\"name\":\"$wrong\",\"retentionMs\":7200000,\"partitions\":4,\"dlq\":false}]"
if run_job "$work/wrong"; then fail "script passed on $wrong with 1 partition where the values say 4"
elif grep -q "topic $wrong has 1 partitions, the values say 4" "$work/wrong/out"; then
  pass "script fails on a topic with the wrong partition count, and names it"
else fail "script failed on $wrong for another reason: $(tail -n 5 "$work/wrong/out")"; fi
[ "$(partitions_of "$wrong")" = 1 ] && pass "the script left $wrong's partitions alone" \
  || fail "$wrong's partition count changed"

if [ "$failures" -ne 0 ]; then
  echo "[topic-job] $failures check(s) failed" >&2
  exit 1
fi
echo "[topic-job] the chart's topic Job script: all checks passed against $broker"
