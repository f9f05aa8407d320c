#!/usr/bin/env bash
# The distributed mode on this machine: every service as its own process against the real Kafka
# and Mongo-wire server of infra.sh, on the HTTP ports of docs/architecture.md (gRPC: see
# `services`). For trying the system as it runs in Kubernetes; the e2e tests and benchmarks start
# their own stacks (test/support/stack.ts).
#   stack.sh start | stop | status | env | topics
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools.sh
. "$here/tools.sh"
state="$MARQUEE_STATE/stack"
mkdir -p "$state/logs" "$state/pids"

# name:http-port:grpc-port in start order: partner and back ends first, the edge last. The gRPC
# ports are the defaults of docs/architecture.md less 30000: the defaults (500xx) lie inside Linux's
# ephemeral port range (32768-60999), so an outgoing connection of a service starting beside them
# (to Kafka, Mongo, a neighbour) could be given one before its owner bound it, and that owner then
# failed with EADDRINUSE. In Kubernetes each pod has ports of its own and the defaults stand.
services=(
  auth-gateway:8081:20051 publisher:8082:20052 catalog-indexer:8083:20053 deals:8084:20054
  partner-reference:8090:20060 3p-connector:8087:20057 cart:8085:20055 secure-entry:8086:20056
  reconciler:8088:20058 edge-gateway:8080:20050
)
http_port() { local rest="${1#*:}"; printf '%s' "${rest%%:*}"; }
grpc_port() { printf '%s' "${1##*:}"; }
# Where every service finds the gRPC server of every other (the GRPC_ADDR_* of their configs).
grpc_addresses() {
  local entry name
  for entry in "${services[@]}"; do
    name="${entry%%:*}"
    [ "$name" = partner-reference ] && continue
    name="$(printf '%s' "$name" | tr 'a-z-' 'A-Z_')"
    printf 'GRPC_ADDR_%s=127.0.0.1:%s\n' "$name" "$(grpc_port "$entry")"
  done
}

admin_token() {
  if [ -n "${ADMIN_TOKEN:-}" ]; then printf '%s' "$ADMIN_TOKEN"; return; fi
  if [ ! -s "$state/admin-token" ]; then
    (umask 077; head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' > "$state/admin-token")
  fi
  cat "$state/admin-token"
}

# A secret of the local stack, made once and kept in the state directory so restarts keep it
# (the connector's stored partner secrets stay readable, partner-reference keeps its client).
stack_secret() { # name bytes
  if [ ! -s "$state/$1" ]; then
    (umask 077; head -c "$2" /dev/urandom | base64 | tr -d '\n' > "$state/$1")
  fi
  cat "$state/$1"
}

running() { [ -f "$state/pids/$1" ] && kill -0 "$(cat "$state/pids/$1")" 2>/dev/null; }

# Every topic of the catalog (packages/proto/src/topics.ts, `allTopics`) and its `.dlq` twin, with
# the catalog's compaction and retention, before any service starts: each topic exists from the
# start whichever service touches it first (or none yet), so consumers, tests and tools such as
# kcat can read any of them at once. Existing topics are left as they are. Needs the built
# packages (platform and proto dist/), which `start` builds first.
create_topics() {
  (
    cd "$repo/packages/platform"
    KAFKA_BROKERS="$KAFKA_BROKERS" node --input-type=module -e '
      import { Kafka, logLevel } from "kafkajs";
      import { ensureTopics } from "@marquee/platform/bus";
      import { allTopics } from "@marquee/proto/topics";
      const kafka = new Kafka({
        clientId: "marquee-stack",
        brokers: process.env.KAFKA_BROKERS.split(","),
        logLevel: logLevel.ERROR,
      });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const created = await ensureTopics(admin, allTopics);
        console.log(
          `${allTopics.length} catalog topics and their .dlq twins present` +
            (created.length > 0 ? `; created ${created.join(", ")}` : ""),
        );
      } finally {
        await admin.disconnect();
      }
    '
  ) | while IFS= read -r line; do log "$line"; done
}

wait_ready() { # name port
  local deadline=$((SECONDS + 60))
  until curl -fsS "http://127.0.0.1:$2/readyz" >/dev/null 2>&1; do
    if ! running "$1"; then log "$1 exited; last log lines:"; tail -n 20 "$state/logs/$1.log" >&2; return 1; fi
    if [ $SECONDS -ge $deadline ]; then log "$1 not ready after 60 s (see $state/logs/$1.log)"; return 1; fi
    sleep 0.3
  done
}

start() {
  eval "$(bash "$here/infra.sh" env)"
  : "${KAFKA_BROKERS:?}" "${MONGO_URL:?}"
  if [ "${STACK_SKIP_BUILD:-}" != 1 ]; then
    log "building services"
    (cd "$repo" && pnpm -s turbo run build --filter='./services/*' --output-logs=errors-only)
  fi
  local token; token="$(admin_token)"
  local credentials_key partner_secret
  credentials_key="$(stack_secret partner-credentials-key 32)"
  # cart's key of order tokens at rest: kept across restarts so retried commits answer their token.
  local order_token_key
  order_token_key="$(stack_secret cart-order-token-key 32)"
  # cart seals the buyer's contact on order-confirmed with it, secure-entry opens it.
  local contact_keys
  contact_keys="k1:$(stack_secret order-contact-key 32)"
  # The key services sign and check their gRPC calls with (docs/architecture.md, "Service-to-service
  # authentication"); one for the whole stack, kept across restarts like the other secrets.
  local service_auth_key
  service_auth_key="${SERVICE_AUTH_KEY:-$(stack_secret service-auth-key 32)}"
  partner_secret="$(stack_secret partner-client-secret 24 | tr '+/' '-_' | tr -d '=')"
  # partner-reference's back office has its own token: the platform's ADMIN_TOKEN is refused there.
  local partner_admin_token
  partner_admin_token="$(stack_secret partner-admin-token 24 | tr '+/' '-_' | tr -d '=')"
  create_topics
  # Each service's Prometheus metrics on a port of its own: 9464, 9465, ... in the order above.
  local metrics_port=9463
  local grpc_env
  mapfile -t grpc_env < <(grpc_addresses)
  for entry in "${services[@]}"; do
    local name="${entry%%:*}" grpc
    grpc="$(grpc_port "$entry")"
    metrics_port=$((metrics_port + 1))
    if running "$name"; then log "$name already running"; continue; fi
    (
      cd "$repo/services/$name"
      # As its start script: the launch hook gives it the V8 options of its package.json
      # (`marquee.v8`). Logs are appended: the log of a crashed process survives its restart.
      env "${grpc_env[@]}" GRPC_PORT="$grpc" \
        KAFKA_BROKERS="$KAFKA_BROKERS" MONGO_URL="$MONGO_URL" ADMIN_TOKEN="$token" LOG_LEVEL="${LOG_LEVEL:-info}" \
        PARTNER_CREDENTIALS_KEY="$credentials_key" CART_ORDER_TOKEN_KEY="$order_token_key" \
        ORDER_CONTACT_KEYS="$contact_keys" \
        PARTNER_CLIENT_ID=marquee-local PARTNER_ALLOWED_HOSTS=127.0.0.1 \
        PARTNER_ADMIN_TOKEN="$partner_admin_token" \
        PARTNER_CLIENT_SECRET="$partner_secret" SERVICE_AUTH_KEY="$service_auth_key" \
        METRICS_PORT="$metrics_port" nohup node --enable-source-maps --import @marquee/platform/v8/launch \
        --import @marquee/platform/telemetry/register dist/main.js \
        >>"$state/logs/$name.log" 2>&1 &
      echo $! >"$state/pids/$name"
    )
  done
  for entry in "${services[@]}"; do wait_ready "${entry%%:*}" "$(http_port "$entry")"; done
  log "stack ready: edge http://127.0.0.1:8080, partner http://127.0.0.1:8090, logs in $state/logs"
  printf 'admin token: %s\n' "$token"
}

stop() {
  for ((i = ${#services[@]} - 1; i >= 0; i--)); do
    local name="${services[$i]%%:*}"
    if running "$name"; then
      local pid; pid="$(cat "$state/pids/$name")"
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -0 "$pid" 2>/dev/null && { log "$name did not stop in 30 s; killing"; kill -KILL "$pid" 2>/dev/null || true; }
    fi
    rm -f "$state/pids/$name"
  done
  log "stack stopped"
}

status() {
  for entry in "${services[@]}"; do
    local name="${entry%%:*}" port
    port="$(http_port "$entry")"
    if running "$name"; then
      printf '%-18s running  pid %-7s http://127.0.0.1:%s %s\n' "$name" "$(cat "$state/pids/$name")" "$port" \
        "$(curl -fsS -o /dev/null -w 'ready' "http://127.0.0.1:$port/readyz" 2>/dev/null || echo 'not ready')"
    else
      printf '%-18s stopped\n' "$name"
    fi
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) status ;;
  topics) eval "$(bash "$here/infra.sh" env)"; : "${KAFKA_BROKERS:?}"; create_topics ;;
  env) printf 'export MARQUEE_BASE_URL=http://127.0.0.1:8080\nexport MARQUEE_PARTNER_URL=http://127.0.0.1:8090\nexport ADMIN_TOKEN=%s\nexport PARTNER_ADMIN_TOKEN=%s\n' "$(admin_token)" "$(stack_secret partner-admin-token 24 | tr '+/' '-_' | tr -d '=')" ;;
  *) echo "usage: $0 start|stop|restart|status|env|topics" >&2; exit 2 ;;
esac
