#!/usr/bin/env bash
# Local infrastructure without Docker: Apache Kafka (KRaft, single node), FerretDB (a MongoDB-wire
# server on SQLite) and stripe-mock (Stripe's API mock, HTTP only), all on loopback. See
# deploy/local/README.md.
#
#   infra.sh install                        fetch Kafka jars (broker and tools), build FerretDB and
#                                           stripe-mock (idempotent)
#   infra.sh start   [kafka|mongo|stripe]   start and wait until ready (already running -> says so)
#   infra.sh stop    [kafka|mongo|stripe]   clean stop, waits for the process to exit
#   infra.sh restart [kafka|mongo|stripe]
#   infra.sh status                         what runs, where, and whether it answers
#   infra.sh env                            export lines for eval: KAFKA_BROKERS, KAFKA_SASL_BROKERS,
#                                           KAFKA_CREDENTIALS_DIR, MONGO_URL, STRIPE_MOCK_URL,
#                                           MARQUEE_STATE
#   infra.sh logs    [kafka|mongo|stripe] [-f]
#   infra.sh check                          end-to-end smoke checks against the running servers
#   infra.sh test-patches                   the Go tests the FerretDB build's patches add, run in
#                                           the patched modules
#
# Environment: KAFKA_PORT (19092), KAFKA_CONTROLLER_PORT (19093), KAFKA_SASL_PORT (KAFKA_PORT + 2,
# the authenticated listener), MONGO_PORT (27117),
# STRIPE_MOCK_PORT (12111), KAFKA_HEAP_OPTS (-Xms256m -Xmx512m), MONGO_LOG_LEVEL (error),
# READY_TIMEOUT seconds (90), STOP_TIMEOUT seconds (60), MARQUEE_TOOLS, MARQUEE_STATE.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tools.sh
. "$here/tools.sh"

KAFKA_PORT="${KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-$((KAFKA_PORT + 2))}"
MONGO_PORT="${MONGO_PORT:-27117}"
# stripe-mock: Stripe's own mock of its API (validates every request against Stripe's OpenAPI, keeps
# no state); the Stripe payment adapter's integration tests run against it.
STRIPE_MOCK_VERSION="${STRIPE_MOCK_VERSION:-v0.203.0}"
STRIPE_MOCK_PORT="${STRIPE_MOCK_PORT:-12111}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
READY_TIMEOUT="${READY_TIMEOUT:-90}"
# FerretDB logs a warning, with the whole wire message, for every command it lacks (the driver's
# endSessions on each close) and for every client disconnect; "error" keeps its log readable.
MONGO_LOG_LEVEL="${MONGO_LOG_LEVEL:-error}"
# How long a clean stop may take before the process is killed. Kafka flushes and closes its logs
# on SIGTERM; a kill -9 instead means a slower log recovery at the next start, not data loss.
STOP_TIMEOUT="${STOP_TIMEOUT:-60}"

KAFKA_STATE="$MARQUEE_STATE/kafka"
FERRET_BIN="$MARQUEE_TOOLS/bin/marquee-ferretdb"
FERRET_STATE="$MARQUEE_STATE/ferretdb"
STRIPE_MOCK_BIN="$MARQUEE_TOOLS/bin/stripe-mock"
STRIPE_MOCK_STATE="$MARQUEE_STATE/stripe-mock"

KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
KAFKA_SASL_BROKERS="127.0.0.1:$KAFKA_SASL_PORT"
# One password file per SASL user (admin, each service, analytics), made at the first start.
KAFKA_CREDENTIALS_DIR="$KAFKA_STATE/credentials"
MONGO_URL="mongodb://127.0.0.1:$MONGO_PORT"
STRIPE_MOCK_URL="http://127.0.0.1:$STRIPE_MOCK_PORT"

die() { log "error: $*"; exit 1; }

check_port() {
  local name="$1" value="$2"
  if ! [[ "$value" =~ ^[0-9]+$ ]] || [ "$value" -lt 1 ] || [ "$value" -gt 65535 ]; then
    die "$name='$value' is not a TCP port (1-65535)"
  fi
}
check_port KAFKA_PORT "$KAFKA_PORT"
check_port KAFKA_CONTROLLER_PORT "$KAFKA_CONTROLLER_PORT"
check_port KAFKA_SASL_PORT "$KAFKA_SASL_PORT"
check_port MONGO_PORT "$MONGO_PORT"
check_port STRIPE_MOCK_PORT "$STRIPE_MOCK_PORT"
[ "$KAFKA_PORT" != "$KAFKA_CONTROLLER_PORT" ] || die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ"
[ "$KAFKA_SASL_PORT" != "$KAFKA_PORT" ] && [ "$KAFKA_SASL_PORT" != "$KAFKA_CONTROLLER_PORT" ] ||
  die "KAFKA_SASL_PORT must differ from KAFKA_PORT and KAFKA_CONTROLLER_PORT"
[[ "$READY_TIMEOUT" =~ ^[0-9]+$ ]] || die "READY_TIMEOUT='$READY_TIMEOUT' is not a number of seconds"
[[ "$STOP_TIMEOUT" =~ ^[0-9]+$ ]] || die "STOP_TIMEOUT='$STOP_TIMEOUT' is not a number of seconds"

# Node 24 for the readiness probes (the machine's own Node may be older).
node_path() {
  local bin
  bin="$(bash "$here/install-node.sh")" || die "could not install Node (deploy/local/install-node.sh)"
  PATH="$bin:$PATH"
  export PATH
  # kafkajs 2.2.4 trips Node's TimeoutNegativeWarning (a harmless setTimeout(-n) in its request
  # queue); keep it out of this script's output.
  export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--disable-warning=TimeoutNegativeWarning"
}

# ---------------------------------------------------------------------------------------------
# process bookkeeping

# pid_of NAME PATTERN: prints the pid recorded for NAME when that process is alive AND still runs
# what we started (its command line contains PATTERN); removes a stale pid file otherwise, e.g.
# after a reboot or a kill -9, when the number may since belong to some other process.
pid_of() {
  local pidfile="$MARQUEE_STATE/$1.pid" pattern="$2" pid
  [ -f "$pidfile" ] || return 1
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] &&
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$pattern"; then
    printf '%s\n' "$pid"
    return 0
  fi
  log "removing stale pid file $pidfile${pid:+ (pid $pid is gone or is another program)}"
  rm -f "$pidfile"
  return 1
}

# port_busy PORT: true when something listens on 127.0.0.1:PORT.
port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# launch NAME LOGFILE CMD...: runs CMD detached in its own session (so it outlives this shell and
# the caller's job control), stdin closed, output appended to LOGFILE; the pid file is written by
# the child itself before exec, so it names the server process and not a wrapper.
launch() {
  local name="$1" logfile="$2"
  shift 2
  local pidfile="$MARQUEE_STATE/$name.pid"
  rm -f "$pidfile"
  printf '\n===== %s start %s =====\n' "$name" "$(date -Is)" >>"$logfile"
  # 9>&-: the server must not inherit the infra lock, or it would hold it for its whole life.
  # shellcheck disable=SC2016  # $$ and $@ belong to the inner sh
  setsid sh -c 'echo $$ > "$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$logfile" 2>&1 9>&- &
  for _ in $(seq 1 50); do
    [ -s "$pidfile" ] && break
    sleep 0.1
  done
  [ -s "$pidfile" ] || die "$name did not start; see $logfile"
  cat "$pidfile"
}

# stop_pid NAME PID: SIGTERM, wait up to STOP_TIMEOUT, then SIGKILL.
stop_pid() {
  local name="$1" pid="$2" waited=0
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge $((STOP_TIMEOUT * 10)) ]; then
      log "$name did not exit within ${STOP_TIMEOUT}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$MARQUEE_STATE/$name.pid"
  log "$name stopped"
}

# ---------------------------------------------------------------------------------------------
# install

stamp_of() { cat "$@" | sha256sum | cut -c1-16; }

install_kafka() {
  local stamp
  stamp="$(stamp_of "$here/kafka/pom.xml")-$KAFKA_VERSION"
  if [ -f "$KAFKA_HOME/.installed" ] && [ "$(cat "$KAFKA_HOME/.installed")" = "$stamp" ]; then
    log "Kafka $KAFKA_VERSION already installed in $KAFKA_HOME"
    return
  fi
  command -v java >/dev/null || die "java not found; install a JDK 17+ (apt-get install openjdk-17-jdk-headless)"
  command -v mvn >/dev/null || die "mvn not found; install Maven (apt-get install maven)"
  local jv
  jv="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [ "${jv%%.*}" -ge 17 ] 2>/dev/null || die "Kafka $KAFKA_VERSION needs Java 17+, found '${jv:-unknown}'"
  log "installing Kafka $KAFKA_VERSION jars from Maven Central into $KAFKA_HOME/lib"
  local tmp="$KAFKA_HOME.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # Lay the jars into a scratch dir and swap it in whole, so an interrupted download never
  # leaves a half-filled lib/ that looks installed.
  if ! mvn -q -B -Dstyle.color=never -f "$here/kafka/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DoutputDirectory="$tmp/lib" -DincludeScope=runtime -Dkafka.version="$KAFKA_VERSION"; then
    rm -rf "$tmp"
    die "Maven could not fetch the Kafka jars"
  fi
  [ -f "$tmp/lib/kafka_2.13-$KAFKA_VERSION.jar" ] || {
    rm -rf "$tmp"
    die "kafka_2.13-$KAFKA_VERSION.jar missing after the Maven copy"
  }
  printf '%s\n' "$stamp" >"$tmp/.installed"
  rm -rf "$KAFKA_HOME"
  mv "$tmp" "$KAFKA_HOME"
  log "Kafka installed ($(find "$KAFKA_HOME/lib" -name '*.jar' | wc -l) jars)"
}

# The kafka-tools jar alone (its dependencies are the broker's, already in $KAFKA_HOME/lib): what
# deploy/local/kafka/bin/kafka-topics.sh runs, the stand-in for Apache's bin/kafka-topics.sh that the
# chart's topic Job is checked with (deploy/helm/check-topic-job.sh). kafka-configs.sh needs
# nothing more: its class (kafka.admin.ConfigCommand) is in the broker's own jar.
install_kafka_tools() {
  local jar="kafka-tools-$KAFKA_VERSION.jar"
  if [ -f "$KAFKA_TOOLS_HOME/lib/$jar" ]; then
    log "Kafka tools $KAFKA_VERSION already installed in $KAFKA_TOOLS_HOME"
    return
  fi
  command -v mvn >/dev/null || die "mvn not found; install Maven (apt-get install maven)"
  log "installing $jar from Maven Central into $KAFKA_TOOLS_HOME/lib"
  local tmp="$KAFKA_TOOLS_HOME.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/lib"
  if ! mvn -q -B -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="org.apache.kafka:kafka-tools:$KAFKA_VERSION" -DoutputDirectory="$tmp/lib"; then
    rm -rf "$tmp"
    die "Maven could not fetch $jar"
  fi
  [ -f "$tmp/lib/$jar" ] || { rm -rf "$tmp"; die "$jar missing after the Maven copy"; }
  rm -rf "$KAFKA_TOOLS_HOME"
  mv "$tmp" "$KAFKA_TOOLS_HOME"
  log "Kafka tools installed"
}

# The directories of patches/ that hold patches, one per patched module.
patched_module_dirs() {
  find "$here/ferretdb/patches" -name '*.patch' -exec dirname {} \; | sort -u
}

# Copies each module that has patches (patches/<module path>/*.patch, each saying why) into
# <dir>/modules/<module path> at the version the committed go.mod names, applies its patches, and
# writes <dir>/go.mod: the committed one plus a replace of each patched module by its copy, so the
# committed go.mod and go.sum stay as they are.
prepare_patched_modules() {
  local src="$here/ferretdb" build="$1" dir module from copy patch
  rm -rf "$build" && mkdir -p "$build"
  cp "$src/go.mod" "$src/go.sum" "$build/"
  while IFS= read -r dir; do
    module="${dir#"$src/patches/"}"
    copy="$build/modules/$module"
    from="$(cd "$src" && go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    [ -d "$from" ] || die "could not download the module $module"
    mkdir -p "$(dirname "$copy")"
    cp -R "$from" "$copy" && chmod -R u+w "$copy"
    for patch in "$dir"/*.patch; do
      # git apply works as a plain patch tool outside a repository; the ceiling keeps it from
      # taking a repository above the build directory for its own.
      GIT_CEILING_DIRECTORIES="$build" git -C "$copy" apply -p1 "$patch" \
        || die "applying $module/$(basename "$patch") failed"
    done
    printf '\nreplace %s => %s\n' "$module" "$copy" >>"$build/go.mod"
  done < <(patched_module_dirs)
}

install_ferretdb() {
  local src="$here/ferretdb" stamp patches
  mapfile -t patches < <(find "$src/patches" -name '*.patch' | sort)
  stamp="$(stamp_of "$src/main.go" "$src/go.mod" "$src/go.sum" "${patches[@]}")"
  if [ -x "$FERRET_BIN" ] && [ -f "$FERRET_BIN.stamp" ] && [ "$(cat "$FERRET_BIN.stamp")" = "$stamp" ]; then
    log "FerretDB launcher already built: $FERRET_BIN"
    return
  fi
  command -v go >/dev/null || die "go not found; install Go 1.24+ (the build fetches modules from the Go module proxy)"
  log "building the FerretDB launcher into $FERRET_BIN (first build takes about 2 minutes)"
  mkdir -p "$(dirname "$FERRET_BIN")"
  # -mod=readonly: go.sum must already be complete (a module a patch adds is required there too).
  local build="$MARQUEE_TOOLS/build/ferretdb"
  prepare_patched_modules "$build"
  (cd "$src" && go build -mod=readonly -modfile="$build/go.mod" -trimpath -o "$FERRET_BIN.tmp" .) \
    || die "building the FerretDB launcher failed"
  mv "$FERRET_BIN.tmp" "$FERRET_BIN"
  printf '%s\n' "$stamp" >"$FERRET_BIN.stamp"
  log "FerretDB launcher built"
}

install_stripe_mock() {
  if [ -x "$STRIPE_MOCK_BIN" ] && [ -f "$STRIPE_MOCK_BIN.stamp" ] &&
    [ "$(cat "$STRIPE_MOCK_BIN.stamp")" = "$STRIPE_MOCK_VERSION" ]; then
    log "stripe-mock $STRIPE_MOCK_VERSION already built: $STRIPE_MOCK_BIN"
    return
  fi
  command -v go >/dev/null || die "go not found; install Go 1.24+ (stripe-mock is built from the Go module proxy)"
  log "building stripe-mock $STRIPE_MOCK_VERSION into $STRIPE_MOCK_BIN (first build takes about 2 minutes)"
  # go install into a scratch GOBIN and swap the binary in, so an interrupted build never leaves a
  # binary that looks built; the stamp names the version it was built from.
  local gobin="$MARQUEE_TOOLS/build/stripe-mock-bin.$$"
  rm -rf "$gobin" && mkdir -p "$gobin" "$(dirname "$STRIPE_MOCK_BIN")"
  GOBIN="$gobin" go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" || {
    rm -rf "$gobin"
    die "building stripe-mock $STRIPE_MOCK_VERSION failed"
  }
  mv "$gobin/stripe-mock" "$STRIPE_MOCK_BIN"
  rm -rf "$gobin"
  printf '%s\n' "$STRIPE_MOCK_VERSION" >"$STRIPE_MOCK_BIN.stamp"
  log "stripe-mock built"
}

cmd_install() {
  install_kafka
  install_kafka_tools
  install_ferretdb
  install_stripe_mock
}

# ---------------------------------------------------------------------------------------------
# Kafka

KAFKA_PATTERN="kafka.Kafka $KAFKA_STATE/server.properties"

kafka_java() {
  java -Dlog4j.configuration="file:$here/kafka/log4j.properties" -Djava.awt.headless=true "$@"
}

kafka_start() {
  local pid
  if pid="$(pid_of kafka "$KAFKA_PATTERN")"; then
    if node "$here/wait-ready.mjs" kafka "$KAFKA_BROKERS" 5 "$pid" >/dev/null 2>&1; then
      log "Kafka already running and ready (pid $pid) on $KAFKA_BROKERS"
      return
    fi
    log "Kafka process $pid exists but does not answer yet; waiting"
  else
    [ -f "$KAFKA_HOME/.installed" ] || install_kafka
    for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$KAFKA_SASL_PORT"; do
      port_busy "$p" && die "127.0.0.1:$p is already in use by another program; stop it or set KAFKA_PORT / KAFKA_CONTROLLER_PORT / KAFKA_SASL_PORT"
    done
    mkdir -p "$KAFKA_STATE/data"
    kafka_credentials
    (
      umask 077 # the file names the PLAIN users' passwords
      sed -e "s#@KAFKA_PORT@#$KAFKA_PORT#g" \
        -e "s#@CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g" \
        -e "s#@SASL_PORT@#$KAFKA_SASL_PORT#g" \
        -e "s#@DATA_DIR@#$KAFKA_STATE/data#g" \
        "$here/kafka/server.properties.in" >"$KAFKA_STATE/server.properties"
      printf '%s' 'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required' >>"$KAFKA_STATE/server.properties"
      for user in $(kafka_users); do
        printf ' user_%s="%s"' "$user" "$(cat "$KAFKA_CREDENTIALS_DIR/$user")" >>"$KAFKA_STATE/server.properties"
      done
      printf ';\n' >>"$KAFKA_STATE/server.properties"
    )

    # One cluster id per data dir, kept across starts; a data dir formatted earlier keeps its own
    # id (read back from meta.properties), so --ignore-formatted never meets a mismatch.
    local cid=""
    if [ -f "$KAFKA_STATE/data/meta.properties" ]; then
      cid="$(sed -n 's/^cluster.id=//p' "$KAFKA_STATE/data/meta.properties")"
    fi
    [ -n "$cid" ] || cid="$(cat "$KAFKA_STATE/cluster-id" 2>/dev/null || true)"
    [ -n "$cid" ] || cid="$(kafka_java -cp "$KAFKA_HOME/lib/*" kafka.tools.StorageTool random-uuid)"
    printf '%s\n' "$cid" >"$KAFKA_STATE/cluster-id"
    # A fresh data dir gets its SCRAM users with the format; one formatted earlier gets the missing
    # ones through the running broker (kafka_scram_users below).
    local scram=()
    if [ ! -f "$KAFKA_STATE/data/meta.properties" ]; then
      for user in $(kafka_users); do
        scram+=(--add-scram "SCRAM-SHA-512=[name=$user,password=$(cat "$KAFKA_CREDENTIALS_DIR/$user")]")
      done
    fi
    kafka_java -cp "$KAFKA_HOME/lib/*" kafka.tools.StorageTool format \
      -t "$cid" -c "$KAFKA_STATE/server.properties" --ignore-formatted "${scram[@]}" >>"$KAFKA_STATE/kafka.log" 2>&1 ||
      die "formatting $KAFKA_STATE/data failed; see $KAFKA_STATE/kafka.log"
    if [ "${#scram[@]}" -gt 0 ]; then
      for user in $(kafka_users); do : >"$KAFKA_CREDENTIALS_DIR/.$user.scram"; done
    fi

    log "starting Kafka $KAFKA_VERSION (KRaft) on $KAFKA_BROKERS, controller 127.0.0.1:$KAFKA_CONTROLLER_PORT"
    # shellcheck disable=SC2086  # KAFKA_HEAP_OPTS is a list of JVM flags
    pid="$(launch kafka "$KAFKA_STATE/kafka.log" java $KAFKA_HEAP_OPTS \
      -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
      -Dlog4j.configuration="file:$here/kafka/log4j.properties" \
      -cp "$KAFKA_HOME/lib/*" kafka.Kafka "$KAFKA_STATE/server.properties")"
  fi
  local t0=$SECONDS
  if ! node "$here/wait-ready.mjs" kafka "$KAFKA_BROKERS" "$READY_TIMEOUT" "$pid"; then
    log "last lines of $KAFKA_STATE/kafka.log:"
    tail -n 20 "$KAFKA_STATE/kafka.log" >&2
    die "Kafka did not become ready"
  fi
  log "Kafka ready in $((SECONDS - t0))s: KAFKA_BROKERS=$KAFKA_BROKERS (pid $pid, data $KAFKA_STATE/data)"
  kafka_scram_users
  node "$here/kafka/acls.mjs" "$KAFKA_SASL_BROKERS" "$KAFKA_CREDENTIALS_DIR" >&2 ||
    die "applying the Kafka ACLs failed; see $KAFKA_STATE/kafka.log"
  log "Kafka SASL listener: KAFKA_SASL_BROKERS=$KAFKA_SASL_BROKERS (users and passwords in $KAFKA_CREDENTIALS_DIR)"
}

# The SASL users: the admin super user, one per service of the generated ACL file, analytics.
kafka_users() {
  printf 'admin\n'
  node -e '
    const acl = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    for (const name of [...acl.services, acl.analytics]) console.log(name);
  ' "$here/../helm/marquee/files/kafka-acls.json"
}

# A random password per user, kept in KAFKA_CREDENTIALS_DIR (mode 700) across starts.
kafka_credentials() {
  (umask 077 && mkdir -p "$KAFKA_CREDENTIALS_DIR")
  local user
  for user in $(kafka_users); do
    [ -s "$KAFKA_CREDENTIALS_DIR/$user" ] && continue
    (umask 077 && head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$KAFKA_CREDENTIALS_DIR/$user")
  done
}

# SCRAM credentials of users the data dir does not have yet (a data dir formatted before them),
# set through the open listener, where the tool is the ANONYMOUS super user.
kafka_scram_users() {
  local user
  for user in $(kafka_users); do
    [ -f "$KAFKA_CREDENTIALS_DIR/.$user.scram" ] && continue
    log "creating the SCRAM-SHA-512 user $user"
    kafka_java -cp "$KAFKA_HOME/lib/*" kafka.admin.ConfigCommand --bootstrap-server "$KAFKA_BROKERS" \
      --alter --entity-type users --entity-name "$user" \
      --add-config "SCRAM-SHA-512=[iterations=4096,password=$(cat "$KAFKA_CREDENTIALS_DIR/$user")]" \
      >>"$KAFKA_STATE/kafka.log" 2>&1 || die "creating the SCRAM user $user failed; see $KAFKA_STATE/kafka.log"
    : >"$KAFKA_CREDENTIALS_DIR/.$user.scram"
  done
}

kafka_stop() {
  local pid
  if pid="$(pid_of kafka "$KAFKA_PATTERN")"; then
    stop_pid kafka "$pid"
  else
    log "Kafka is not running"
  fi
}

# ---------------------------------------------------------------------------------------------
# FerretDB

FERRET_PATTERN="marquee-ferretdb"

mongo_start() {
  local pid
  if pid="$(pid_of ferretdb "$FERRET_PATTERN")"; then
    if node "$here/wait-ready.mjs" mongo "$MONGO_URL" 5 "$pid" >/dev/null 2>&1; then
      log "FerretDB already running and ready (pid $pid) on $MONGO_URL"
      return
    fi
    log "FerretDB process $pid exists but does not answer yet; waiting"
  else
    # Rebuilds when the launcher, its module list or a patch changed since the last build (stamp).
    install_ferretdb
    port_busy "$MONGO_PORT" && die "127.0.0.1:$MONGO_PORT is already in use by another program; stop it or set MONGO_PORT"
    mkdir -p "$FERRET_STATE/data"
    log "starting FerretDB (SQLite backend) on $MONGO_URL"
    pid="$(launch ferretdb "$FERRET_STATE/ferretdb.log" "$FERRET_BIN" \
      -host 127.0.0.1 -port "$MONGO_PORT" -data-dir "$FERRET_STATE/data" -log-level "$MONGO_LOG_LEVEL")"
  fi
  local t0=$SECONDS
  if ! node "$here/wait-ready.mjs" mongo "$MONGO_URL" "$READY_TIMEOUT" "$pid"; then
    log "last lines of $FERRET_STATE/ferretdb.log:"
    tail -n 20 "$FERRET_STATE/ferretdb.log" >&2
    die "FerretDB did not become ready"
  fi
  log "FerretDB ready in $((SECONDS - t0))s: MONGO_URL=$MONGO_URL (pid $pid, data $FERRET_STATE/data)"
}

mongo_stop() {
  local pid
  if pid="$(pid_of ferretdb "$FERRET_PATTERN")"; then
    stop_pid ferretdb "$pid"
  else
    log "FerretDB is not running"
  fi
}

# ---------------------------------------------------------------------------------------------
# stripe-mock

STRIPE_MOCK_PATTERN="stripe-mock -http-addr 127.0.0.1:$STRIPE_MOCK_PORT"

# stripe_answers SECONDS [PID]: true once stripe-mock answers an authenticated API call with 200
# (it checks only that a key is sent; any sk_test_ value will do); false at once when PID exits.
stripe_answers() {
  local deadline=$((SECONDS + $1)) pid="${2:-}"
  while :; do
    if node -e '
      fetch(process.argv[1] + "/v1/payment_intents?limit=1", {
        headers: { authorization: "Bearer sk_test_infra" },
        signal: AbortSignal.timeout(2000),
      }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1));
    ' "$STRIPE_MOCK_URL" 2>/dev/null; then
      return 0
    fi
    [ "$SECONDS" -lt "$deadline" ] || return 1
    [ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.5
  done
}

stripe_start() {
  local pid
  if pid="$(pid_of stripe-mock "$STRIPE_MOCK_PATTERN")"; then
    if stripe_answers 5; then
      log "stripe-mock already running and ready (pid $pid) on $STRIPE_MOCK_URL"
      return
    fi
    log "stripe-mock process $pid exists but does not answer yet; waiting"
  else
    [ -x "$STRIPE_MOCK_BIN" ] || install_stripe_mock
    port_busy "$STRIPE_MOCK_PORT" && die "127.0.0.1:$STRIPE_MOCK_PORT is already in use by another program; stop it or set STRIPE_MOCK_PORT"
    mkdir -p "$STRIPE_MOCK_STATE"
    log "starting stripe-mock $STRIPE_MOCK_VERSION on $STRIPE_MOCK_URL"
    # HTTP on loopback only. stripe-mock always serves HTTPS too, by default on :12112 of every
    # interface; a Unix socket in the state directory keeps that listener off the network. A
    # socket left by a killed stripe-mock would make its listen fail.
    rm -f "$STRIPE_MOCK_STATE/https.sock"
    pid="$(launch stripe-mock "$STRIPE_MOCK_STATE/stripe-mock.log" "$STRIPE_MOCK_BIN" \
      -http-addr "127.0.0.1:$STRIPE_MOCK_PORT" -https-unix "$STRIPE_MOCK_STATE/https.sock")"
  fi
  local t0=$SECONDS
  if ! stripe_answers "$READY_TIMEOUT" "$pid"; then
    log "last lines of $STRIPE_MOCK_STATE/stripe-mock.log:"
    tail -n 20 "$STRIPE_MOCK_STATE/stripe-mock.log" >&2
    die "stripe-mock did not become ready"
  fi
  log "stripe-mock ready in $((SECONDS - t0))s: STRIPE_MOCK_URL=$STRIPE_MOCK_URL (pid $pid)"
}

stripe_stop() {
  local pid
  if pid="$(pid_of stripe-mock "$STRIPE_MOCK_PATTERN")"; then
    stop_pid stripe-mock "$pid"
  else
    log "stripe-mock is not running"
  fi
}

# ---------------------------------------------------------------------------------------------
# commands

# One infra.sh at a time changes the servers: several engineers (or test runs) share them, and two
# concurrent starts would both find nothing running and race for the ports.
lock() {
  exec 9>"$MARQUEE_STATE/infra.lock"
  if ! flock -n 9; then
    log "another infra.sh is starting or stopping servers; waiting for it"
    flock -w 300 9 || die "gave up waiting for $MARQUEE_STATE/infra.lock"
  fi
}

# set_targets [kafka|mongo|stripe]: sets TARGETS, the services a command applies to. Not a $(...) helper:
# die inside a command substitution would only leave the subshell.
TARGETS=()
set_targets() {
  case "${1:-all}" in
  all | "") TARGETS=(kafka mongo stripe) ;;
  kafka) TARGETS=(kafka) ;;
  mongo | ferretdb) TARGETS=(mongo) ;;
  stripe | stripe-mock) TARGETS=(stripe) ;;
  *) die "unknown service '$1' (expected kafka, mongo or stripe)" ;;
  esac
}

cmd_start() {
  node_path
  mkdir -p "$KAFKA_STATE" "$FERRET_STATE" "$STRIPE_MOCK_STATE"
  local s
  set_targets "${1:-}"
  for s in "${TARGETS[@]}"; do "${s}_start"; done
}

cmd_stop() {
  local s
  set_targets "${1:-}"
  for s in "${TARGETS[@]}"; do "${s}_stop"; done
}

cmd_restart() {
  set_targets "${1:-}"
  cmd_stop "${1:-}"
  cmd_start "${1:-}"
}

cmd_status() {
  node_path
  local pid rc=0
  if pid="$(pid_of kafka "$KAFKA_PATTERN" 2>/dev/null)"; then
    if node "$here/wait-ready.mjs" kafka "$KAFKA_BROKERS" 5 "$pid" >/dev/null 2>&1; then
      echo "kafka: running, ready   pid $pid  KAFKA_BROKERS=$KAFKA_BROKERS"
    else
      echo "kafka: running, NOT answering   pid $pid  (see: infra.sh logs kafka)"
      rc=1
    fi
  else
    echo "kafka: stopped"
    rc=1
  fi
  if pid="$(pid_of ferretdb "$FERRET_PATTERN" 2>/dev/null)"; then
    if node "$here/wait-ready.mjs" mongo "$MONGO_URL" 5 "$pid" >/dev/null 2>&1; then
      echo "mongo: running, ready   pid $pid  MONGO_URL=$MONGO_URL  (FerretDB)"
    else
      echo "mongo: running, NOT answering   pid $pid  (see: infra.sh logs mongo)"
      rc=1
    fi
  else
    echo "mongo: stopped"
    rc=1
  fi
  if pid="$(pid_of stripe-mock "$STRIPE_MOCK_PATTERN" 2>/dev/null)"; then
    if stripe_answers 5; then
      echo "stripe: running, ready   pid $pid  STRIPE_MOCK_URL=$STRIPE_MOCK_URL  (stripe-mock $STRIPE_MOCK_VERSION)"
    else
      echo "stripe: running, NOT answering   pid $pid  (see: infra.sh logs stripe)"
      rc=1
    fi
  else
    echo "stripe: stopped"
    rc=1
  fi
  return $rc
}

cmd_env() {
  printf 'export KAFKA_BROKERS=%s\n' "$KAFKA_BROKERS"
  # The authenticated listener and the SASL users' password files (admin, each service, analytics),
  # when the broker was started with them (a broker started by an older infra.sh has neither).
  if grep -qs '^listeners=.*SASL_PLAINTEXT://' "$KAFKA_STATE/server.properties" &&
    [ -s "$KAFKA_CREDENTIALS_DIR/admin" ]; then
    printf 'export KAFKA_SASL_BROKERS=%s\n' "$KAFKA_SASL_BROKERS"
    printf 'export KAFKA_CREDENTIALS_DIR=%s\n' "$KAFKA_CREDENTIALS_DIR"
  fi
  printf 'export MONGO_URL=%s\n' "$MONGO_URL"
  printf 'export STRIPE_MOCK_URL=%s\n' "$STRIPE_MOCK_URL"
  # Where the servers' pid files are (benchmarks count those processes' CPU).
  printf 'export MARQUEE_STATE=%s\n' "$MARQUEE_STATE"
}

cmd_logs() {
  local which="" follow=()
  for a in "$@"; do
    case "$a" in
    -f | --follow) follow=(-F) ;;
    *) which="$a" ;;
    esac
  done
  local files=() s
  set_targets "$which"
  for s in "${TARGETS[@]}"; do
    case "$s" in
    kafka) files+=("$KAFKA_STATE/kafka.log") ;;
    mongo) files+=("$FERRET_STATE/ferretdb.log") ;;
    stripe) files+=("$STRIPE_MOCK_STATE/stripe-mock.log") ;;
    esac
  done
  local f existing=()
  for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
  [ "${#existing[@]}" -gt 0 ] || die "no log yet (${files[*]})"
  tail -n 50 "${follow[@]}" "${existing[@]}"
}

# Runs the Go tests that the patches add or change, in the patched copies of their modules.
cmd_test_patches() {
  command -v go >/dev/null || die "go not found; install Go 1.24+"
  local build="$MARQUEE_TOOLS/build/ferretdb-patch-tests" dir module packages ran=0
  prepare_patched_modules "$build"
  while IFS= read -r dir; do
    module="${dir#"$here/ferretdb/patches/"}"
    mapfile -t packages < <(sed -n 's|^+++ b/\(.*\)/[^/]*_test\.go$|./\1|p' "$dir"/*.patch | sort -u)
    [ "${#packages[@]}" -gt 0 ] || continue
    log "go test ${packages[*]} in the patched $module"
    # FerretDB's test helpers find the module's root by a .git entry above the working directory.
    touch "$build/modules/$module/.git"
    (cd "$build/modules/$module" && go test -count=1 "${packages[@]}") || die "the tests of $module's patches failed"
    ran=$((ran + ${#packages[@]}))
  done < <(patched_module_dirs)
  log "patch tests passed ($ran packages)"
}

cmd_check() {
  node_path
  node "$here/kafka/smoke-check.mjs" "$KAFKA_BROKERS"
  node "$here/ferretdb/compat-check.mjs" "$MONGO_URL"
  stripe_answers 5 || die "stripe-mock does not answer on $STRIPE_MOCK_URL"
  log "stripe-mock answers on $STRIPE_MOCK_URL"
}

usage() {
  # the header comment, up to the first line that is not a comment
  sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

case "${1:-}" in
install) lock; cmd_install ;;
start) lock; cmd_start "${2:-}" ;;
stop) lock; cmd_stop "${2:-}" ;;
restart) lock; cmd_restart "${2:-}" ;;
status) cmd_status ;;
env) cmd_env ;;
logs) shift; cmd_logs "$@" ;;
check) cmd_check ;;
test-patches) cmd_test_patches ;;
-h | --help | help) usage ;;
"") usage; exit 2 ;;
*) log "unknown command '$1'"; usage; exit 2 ;;
esac
