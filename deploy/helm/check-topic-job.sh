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
# With kafkaAuth (the brokers' SASL logins), the same script logs in with the client properties the
# chart renders (templates/_helpers.tpl, marquee.kafkaAdminLogin) from the admin password it mounts.
# When KAFKA_SASL_BROKERS and KAFKA_CREDENTIALS_DIR are set (`infra.sh env`: the local broker's
# SASL_PLAINTEXT listener, ACLs enforced by the StandardAuthorizer), the Job's script is rendered
# with kafkaAuth on (tls off: the local listener has none) and run there as the admin principal of
# infra.sh, the mounted paths (/var/run/secrets/kafka, /tmp/client.properties) moved under this
# run's scratch directory. It asserts that
#   4. with SCRAM-SHA-512 the script creates the topics there, and with PLAIN it passes on them,
#   5. with a wrong admin password it fails and creates nothing,
#   6. the kafka-acls Job's script, rendered from a chart copy whose files/kafka-acls.json names
#      only this run's principal and topics, adds exactly those bindings (removed at the end).
# Without them the part is skipped, and under CI or MARQUEE_TEST_STRICT=1 (`pnpm test`) that is a
# failure. Each run of a Job's script is bounded by TOPIC_JOB_TIMEOUT seconds (600).
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
acls() { "$bin/kafka-acls.sh" --bootstrap-server "$broker" "$@"; }
cleanup() {
  # Only this run's topics: the regular expression is the unique prefix.
  topics --delete --if-exists --topic "$prefix-.*" >/dev/null 2>&1 || true
  # Only this run's ACL bindings (part 6), when it got that far.
  if [ -f "$work/acl-resources" ]; then
    while read -r kind pattern name; do
      acls --remove --force "--$kind" "$name" --resource-pattern-type "$pattern" >/dev/null 2>&1 || true
    done <"$work/acl-resources"
  fi
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
  # The container's environment, but LOG_DIR under this run's scratch directory; bounded as the
  # Job's activeDeadlineSeconds bounds it in the cluster (TOPIC_JOB_TIMEOUT seconds, 600).
  local status=0
  (set -a; . "$1/env.sh"; LOG_DIR="$1/logs"
    exec timeout "${TOPIC_JOB_TIMEOUT:-600}" /bin/sh -ec "$(cat "$1/script.sh")") >"$1/out" 2>&1 || status=$?
  [ "$status" != 124 ] || echo "the script did not finish in ${TOPIC_JOB_TIMEOUT:-600} s" >>"$1/out"
  return "$status"
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
  # A missing topic is a FAIL line like any other difference, not the end of the check.
  got="$(partitions_of "$1" 2>/dev/null || true),$(config_of "$1" cleanup.policy 2>/dev/null || true)"
  got="$got,$(config_of "$1" retention.ms 2>/dev/null || true),$(config_of "$1" min.insync.replicas 2>/dev/null || true)"
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

# ---- 4-6. with kafkaAuth, on the authenticated listener -----------------------------------------
strict() { [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ] || [ "${MARQUEE_TEST_STRICT:-}" = 1 ]; }
if [ -z "${KAFKA_SASL_BROKERS:-}" ] || [ -z "${KAFKA_CREDENTIALS_DIR:-}" ] || [ ! -s "${KAFKA_CREDENTIALS_DIR:-}/admin" ]; then
  if strict; then
    fail "kafkaAuth: KAFKA_SASL_BROKERS, KAFKA_CREDENTIALS_DIR or its admin password missing (a broker infra.sh started; eval \"\$(bash deploy/local/infra.sh env)\")"
  else
    printf '[topic-job] skip the kafkaAuth checks (KAFKA_SASL_BROKERS / KAFKA_CREDENTIALS_DIR unset: eval "$(bash deploy/local/infra.sh env)")\n'
  fi
else
  admin_password="$(cat "$KAFKA_CREDENTIALS_DIR/admin")"

  # A Job template rendered with kafkaAuth on (SASL without TLS, as the local listener), its script
  # and environment; the admin password written where the Job mounts it, and the two paths the
  # script uses in the pod (the Secret's mount and /tmp) moved under out-dir.
  render_auth() { # out-dir chart template mechanism password [helm-args...]
    local out="$1" from="$2" template="$3" mechanism="$4" password="$5"
    shift 5
    mkdir -p "$out/secrets"
    (umask 077 && printf '%s' "$password" >"$out/secrets/admin.password")
    helm template marquee "$from" --namespace marquee --show-only "templates/$template" \
      --set secrets.existingSecret=unused --set "global.kafkaBrokers=$KAFKA_SASL_BROKERS" \
      --set kafkaAuth.enabled=true --set kafkaAuth.existingSecret=kafka-logins \
      --set kafkaAuth.tls.enabled=false --set "kafkaAuth.mechanism=$mechanism" \
      --set topicJob.replicationFactor=1 --set "topicJob.kafkaBinDir=$bin" \
      --set topicJob.dlq.partitions=1 --set topicJob.dlq.retentionMs=3600000 "$@" >"$out/job.yaml"
    python3 - "$out" <<'PY'
import shlex, sys, yaml
out = sys.argv[1]
job = yaml.safe_load(open(f"{out}/job.yaml"))
pod = job["spec"]["template"]["spec"]
c = pod["containers"][0]
assert c["command"] == ["/bin/sh", "-ec"], c["command"]
mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
assert mounts.get("/var/run/secrets/kafka") == "kafka-auth" and mounts.get("/tmp") == "tmp", mounts
secret = next(v["secret"] for v in pod["volumes"] if v["name"] == "kafka-auth")
assert {"key": "admin.password", "path": "admin.password"} in secret["items"], secret["items"]
script = c["args"][0]
for path in ("/var/run/secrets/kafka/admin.password", "/tmp/client.properties"):
    assert path in script, f"the script does not use {path}"
# The Secret's mount (admin.password, ca.crt when the values name one) and the client properties.
moved = {"/var/run/secrets/kafka/": f"{out}/secrets/", "/tmp/client.properties": f"{out}/client.properties"}
rest = script
for path in moved:
    rest = rest.replace(path, "")
assert "/var/run/secrets" not in rest and "/tmp/" not in rest, "the script uses another path of the pod"
for path, local in moved.items():
    script = script.replace(path, local)
open(f"{out}/script.sh", "w").write(script)
with open(f"{out}/env.sh", "w") as f:
    for e in c["env"]:
        f.write(f"export {e['name']}={shlex.quote(e['value'])}\n")
PY
  }

  # 4. SCRAM-SHA-512 creates the topics on the SASL listener; PLAIN passes on them
  authed="$prefix-authed"
  authed_topics="[{\"name\":\"$authed\",\"retentionMs\":7200000,\"partitions\":2}]"
  render_auth "$work/scram" "$chart" topics-job.yaml scram-sha-512 "$admin_password" \
    --set topicJob.waitSeconds=30 --set-json "topics=$authed_topics"
  if run_job "$work/scram"; then pass "kafkaAuth SCRAM-SHA-512: script exits 0 on $KAFKA_SASL_BROKERS, logged in as admin"
  else fail "kafkaAuth SCRAM-SHA-512: script failed on $KAFKA_SASL_BROKERS: $(tail -n 5 "$work/scram/out")"; fi
  grep -q '^2 topics provisioned$' "$work/scram/out" && pass "kafkaAuth SCRAM-SHA-512: script reports 2 topics (1 + its .dlq twin)" \
    || fail "kafkaAuth SCRAM-SHA-512: script did not report 2 topics: $(tail -n 3 "$work/scram/out")"
  check_topic "$authed" 2 delete 7200000
  check_topic "$authed.dlq" 1 delete 3600000
  props="$work/scram/client.properties"
  if [ -f "$props" ] && grep -qx 'security.protocol=SASL_PLAINTEXT' "$props" && grep -qx 'sasl.mechanism=SCRAM-SHA-512' "$props" &&
    grep -qxF "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"$admin_password\";" "$props" &&
    [ "$(stat -c %a "$props")" = 600 ]; then
    pass "kafkaAuth SCRAM-SHA-512: the client properties (SASL_PLAINTEXT, ScramLoginModule as admin with the mounted password, mode 600)"
  else fail "kafkaAuth SCRAM-SHA-512: unexpected client properties: $(sed 's/password="[^"]*"/password="…"/' "$props" 2>&1)"; fi
  render_auth "$work/plain-login" "$chart" topics-job.yaml plain "$admin_password" \
    --set topicJob.waitSeconds=30 --set-json "topics=$authed_topics"
  if run_job "$work/plain-login" && grep -q "^topic $authed ok (2 partitions)$" "$work/plain-login/out" &&
    grep -q 'PlainLoginModule required username="admin"' "$work/plain-login/client.properties"; then
    pass "kafkaAuth PLAIN: script passes on the existing topics, logged in as admin"
  else fail "kafkaAuth PLAIN: script failed: $(tail -n 5 "$work/plain-login/out")"; fi

  # 5. a wrong admin password: the script fails (after its wait) and creates nothing
  refused="$prefix-refused"
  render_auth "$work/bad-login" "$chart" topics-job.yaml scram-sha-512 "not-$admin_password" \
    --set topicJob.waitSeconds=1 --set-json "topics=[{\"name\":\"$refused\",\"retentionMs\":7200000,\"partitions\":1,\"dlq\":false}]"
  if run_job "$work/bad-login"; then fail "kafkaAuth: script passed with a wrong admin password"
  elif grep -q "did not answer in 1s" "$work/bad-login/out"; then pass "kafkaAuth: a wrong admin password fails the script"
  else fail "kafkaAuth: the script with a wrong password failed for another reason: $(tail -n 5 "$work/bad-login/out")"; fi
  if topics --list | grep -qx "$refused"; then fail "kafkaAuth: $refused created with a wrong password"
  else pass "kafkaAuth: nothing created with a wrong password"; fi

  # 6. the kafka-acls Job's script, from a copy of the chart whose ACL file names this run's
  # principal, topics and group prefix only (the real file's bindings are infra.sh's to manage)
  acl_chart="$work/acl-chart"
  cp -r "$chart" "$acl_chart"
  principal="User:$prefix-svc"
  python3 - "$acl_chart/files/kafka-acls.json" "$principal" "$prefix" <<'PY'
import json, sys
path, principal, prefix = sys.argv[1:]
acls = [{"principal": principal, "resourceType": "TOPIC", "patternType": "LITERAL", "resourceName": f"{prefix}-{t}", "operation": op}
        for t in ("acl-a", "acl-b") for op in ("DESCRIBE", "DESCRIBE_CONFIGS", "WRITE")]
acls += [{"principal": principal, "resourceType": "GROUP", "patternType": "PREFIXED", "resourceName": prefix, "operation": op}
         for op in ("DESCRIBE", "READ")]
json.dump({"services": [], "analytics": "analytics", "acls": acls}, open(path, "w"), indent=1)
PY
  printf 'topic literal %s\ntopic literal %s\ngroup prefixed %s\n' "$prefix-acl-a" "$prefix-acl-b" "$prefix" >"$work/acl-resources"
  render_auth "$work/acl" "$acl_chart" kafka-acls-job.yaml scram-sha-512 "$admin_password" --set topicJob.waitSeconds=30
  [ "$(grep -c '^ *grant ' "$work/acl/script.sh")" = 2 ] && pass "kafka-acls: 8 bindings rendered as 2 grants (one per principal, kind, pattern and operations)" \
    || fail "kafka-acls: expected 2 grant lines: $(grep '^ *grant ' "$work/acl/script.sh")"
  if run_job "$work/acl" && grep -q '^8 ACL bindings applied$' "$work/acl/out"; then
    pass "kafka-acls: script exits 0 on $KAFKA_SASL_BROKERS, logged in as admin"
  else fail "kafka-acls: script failed: $(tail -n 5 "$work/acl/out")"; fi
  acls --list --principal "$principal" >"$work/acl/list" 2>&1 || true
  if python3 - "$acl_chart/files/kafka-acls.json" "$work/acl/list" "$principal" <<'PY'
import json, re, sys
want = {(a["resourceType"], a["resourceName"], a["patternType"], a["operation"]) for a in json.load(open(sys.argv[1]))["acls"]}
got, resource = set(), None
for line in open(sys.argv[2]):
    m = re.search(r"ResourcePattern\(resourceType=(\w+), name=([^,]+), patternType=(\w+)\)", line)
    if m: resource = m.groups(); continue
    m = re.search(r"\(principal=([^,]+), host=\*, operation=(\w+), permissionType=ALLOW\)", line)
    if m and resource and m.group(1) == sys.argv[3]: got.add((*resource, m.group(2)))
if got != want:
    sys.exit(f"missing {sorted(want - got)}, unexpected {sorted(got - want)}")
PY
  then pass "kafka-acls: the broker holds exactly the file's 8 bindings for $principal"
  else fail "kafka-acls: the broker's bindings differ from the file: $(tail -n 3 "$work/acl/list")"; fi
fi

if [ "$failures" -ne 0 ]; then
  echo "[topic-job] $failures check(s) failed" >&2
  exit 1
fi
echo "[topic-job] the chart's topic Job script: all checks passed against $broker${KAFKA_SASL_BROKERS:+ and $KAFKA_SASL_BROKERS}"
