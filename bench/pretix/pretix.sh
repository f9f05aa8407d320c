#!/usr/bin/env bash
# pretix from PyPI, served by gunicorn on its production database (a private PostgreSQL cluster),
# both on loopback: the peer the cart benchmark compares reserves with (bench/README.md,
# "cart-reserve"). No Redis and no Celery: without them pretix runs its tasks in the request and
# caches nothing between requests; the cart-position API needs neither.
#
#   pretix.sh install   make the virtualenv $MARQUEE_TOOLS/pretix-$PRETIX_VERSION (idempotent)
#   pretix.sh start     install, make the cluster (once), start PostgreSQL and gunicorn on free
#                       loopback ports, migrate, make the bench's organizer, events, items, quotas
#                       and API token (python -m pretix shell < seed.py); prints `export` lines:
#                       PRETIX_URL, PRETIX_TOKEN, the slugs and ids, PRETIX_STARTED (1 when this
#                       call started gunicorn, 0 when it was already running)
#   pretix.sh stop      stop gunicorn, then PostgreSQL (each waits for its process to exit)
#   pretix.sh status    what runs, where
#   pretix.sh env       the export lines of the last start
#   pretix.sh pids      `gunicorn <pid>` and `postgres <pid>`: the gunicorn master and postmaster
#
# Environment: PRETIX_VERSION (2026.8.0), PRETIX_GUNICORN_VERSION (27.0.1), PRETIX_PYTHON
# (python3.11), PRETIX_WORKERS (2, gunicorn sync workers), PRETIX_PORT and PRETIX_PG_PORT (free
# ports by default), PRETIX_RESERVE_PLACES (1000000), PRETIX_BURST_PLACES (200), READY_TIMEOUT
# seconds (120), INSTALL_TIMEOUT seconds (900), MARQUEE_TOOLS, MARQUEE_STATE (deploy/local/tools.sh).
# State: $MARQUEE_STATE/pretix (config, data, pid file, logs); the cluster in $PRETIX_STATE/pg, or,
# for root (PostgreSQL refuses to run as root and runs as the `postgres` user, who cannot enter
# root's home), in /var/tmp/marquee-pretix-pg.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../../deploy/local/tools.sh
. "$here/../../deploy/local/tools.sh"

PRETIX_VERSION="${PRETIX_VERSION:-2026.8.0}"
PRETIX_GUNICORN_VERSION="${PRETIX_GUNICORN_VERSION:-27.0.1}"
PRETIX_PYTHON="${PRETIX_PYTHON:-python3.11}"
PRETIX_WORKERS="${PRETIX_WORKERS:-2}"
PRETIX_RESERVE_PLACES="${PRETIX_RESERVE_PLACES:-1000000}"
PRETIX_BURST_PLACES="${PRETIX_BURST_PLACES:-200}"
READY_TIMEOUT="${READY_TIMEOUT:-120}"
INSTALL_TIMEOUT="${INSTALL_TIMEOUT:-900}"
STOP_TIMEOUT=60

VENV="$MARQUEE_TOOLS/pretix-$PRETIX_VERSION"
PY="$VENV/bin/python"
STATE="$MARQUEE_STATE/pretix"
if [ "$(id -u)" = 0 ]; then
  PG_HOME="/var/tmp/marquee-pretix-pg"
  PG_USER=postgres
else
  PG_HOME="$STATE/pg"
  PG_USER=""
fi
PG_DATA="$PG_HOME/data"
CONFIG="$STATE/pretix.cfg"
GUNICORN_PIDFILE="$STATE/gunicorn.pid"
ENV_FILE="$STATE/env"

die() { log "pretix: error: $*"; exit 1; }
for n in PRETIX_WORKERS PRETIX_RESERVE_PLACES PRETIX_BURST_PLACES READY_TIMEOUT INSTALL_TIMEOUT; do
  [[ "${!n}" =~ ^[0-9]+$ ]] && [ "${!n}" -ge 1 ] || die "$n='${!n}' is not a positive whole number"
done

# The PostgreSQL binaries: the directory of the pg_ctl on PATH, or Debian's newest.
pg_bin() {
  local ctl
  if ctl="$(command -v pg_ctl)"; then
    dirname "$(readlink -f "$ctl")"
    return
  fi
  ctl="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$ctl" ] || die "no PostgreSQL binaries (apt-get install postgresql)"
  printf '%s\n' "$ctl"
}
PG_BIN="$(pg_bin)"

# as_pg CMD...: runs a PostgreSQL binary as the cluster's owner.
as_pg() {
  if [ -n "$PG_USER" ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

free_port() {
  "$PRETIX_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---------------------------------------------------------------------------------------------

cmd_install() {
  local stamp="pretix==$PRETIX_VERSION gunicorn==$PRETIX_GUNICORN_VERSION"
  if [ -x "$PY" ] && [ "$(cat "$VENV/.installed" 2>/dev/null)" = "$stamp" ]; then
    log "pretix $PRETIX_VERSION already installed in $VENV"
    return
  fi
  command -v "$PRETIX_PYTHON" >/dev/null || die "$PRETIX_PYTHON not found (set PRETIX_PYTHON)"
  log "installing $stamp into $VENV (a few minutes the first time)"
  # A virtualenv is not relocatable: it is made in place, and only the stamp written last says
  # it is whole; an interrupted install is made again from scratch.
  rm -rf "$VENV"
  "$PRETIX_PYTHON" -m venv "$VENV"
  timeout "$INSTALL_TIMEOUT" "$PY" -m pip install -q --disable-pip-version-check \
    "pretix==$PRETIX_VERSION" "gunicorn==$PRETIX_GUNICORN_VERSION" >&2 ||
    { rm -rf "$VENV"; die "pip could not install $stamp"; }
  printf '%s\n' "$stamp" >"$VENV/.installed"
  log "pretix installed"
}

# The cluster: made once, owned by its runner, password authentication on loopback only.
pg_init() {
  [ -f "$PG_DATA/PG_VERSION" ] && return
  log "making the PostgreSQL cluster in $PG_DATA"
  rm -rf "$PG_HOME"
  mkdir -p "$PG_HOME"
  (umask 077 && head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$STATE/pg-password")
  cp "$STATE/pg-password" "$PG_HOME/pwfile"
  [ -z "$PG_USER" ] || chown -R "$PG_USER:" "$PG_HOME"
  as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U pretix --pwfile="$PG_HOME/pwfile" \
    --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$STATE/initdb.log" 2>&1 ||
    die "initdb failed; see $STATE/initdb.log"
  rm -f "$PG_HOME/pwfile"
}

pg_pid() {
  local pid
  pid="$(head -n 1 "$PG_DATA/postmaster.pid" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] &&
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$PG_DATA" && printf '%s\n' "$pid"
}

pg_start() {
  if pg_pid >/dev/null; then
    PG_PORT="$(sed -n 4p "$PG_DATA/postmaster.pid")"
    log "PostgreSQL already running on 127.0.0.1:$PG_PORT"
    return
  fi
  PG_PORT="${PRETIX_PG_PORT:-$(free_port)}"
  log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
  STARTED_PG=1
  # No Unix socket (its default directory belongs to the system's service); TCP on loopback only.
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_HOME/postgres.log" -w -t "$READY_TIMEOUT" \
    -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=''" start >&2 ||
    die "PostgreSQL did not start; see $PG_HOME/postgres.log"
  PGPASSWORD="$(cat "$STATE/pg-password")" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U pretix \
    -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'pretix'" | grep -q 1 ||
    PGPASSWORD="$(cat "$STATE/pg-password")" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" \
      -U pretix pretix || die "could not create the pretix database"
}

pg_stop() {
  if pg_pid >/dev/null; then
    log "stopping PostgreSQL"
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t "$STOP_TIMEOUT" stop >&2
  else
    log "PostgreSQL is not running"
  fi
}

gunicorn_pid() {
  local pid
  pid="$(cat "$GUNICORN_PIDFILE" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] &&
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "gunicorn pretix.wsgi" && printf '%s\n' "$pid"
}

write_config() {
  [ -s "$STATE/secret" ] || (umask 077 && head -c 36 /dev/urandom | base64 >"$STATE/secret")
  (
    umask 077
    cat >"$CONFIG" <<EOF
[pretix]
instance_name=Marquee bench peer
url=http://127.0.0.1:$HTTP_PORT
datadir=$STATE/data
currency=EUR
ecb_rates=False
registration=False

[django]
secret=$(cat "$STATE/secret")
debug=False

[database]
backend=postgresql
name=pretix
user=pretix
password=$(cat "$STATE/pg-password")
host=127.0.0.1
port=$PG_PORT

[locale]
timezone=UTC
EOF
  )
}

# pretix SECONDS ARGS...: python -m pretix ARGS, bounded in time.
pretix() {
  local limit="$1"
  shift
  PRETIX_CONFIG_FILE="$CONFIG" timeout "$limit" "$PY" -m pretix "$@"
}

# answers SECONDS PID: true once pretix answers its API with the bench's token.
answers() {
  local deadline=$((SECONDS + $1)) pid="$2" token
  token="$(sed -n 's/^export PRETIX_TOKEN=//p' "$ENV_FILE")"
  while :; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -m 5 -H "Authorization: Token $token" \
      "http://127.0.0.1:$HTTP_PORT/api/v1/organizers/")" = 200 ] && return 0
    [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.5
  done
}

# A start that fails (or is stopped by a signal or its caller's timeout) stops what it started.
STARTED_PG=0
STARTED_GUNICORN=0
undo_start() {
  [ "$STARTED_GUNICORN" = 0 ] || { gunicorn_pid >/dev/null && kill -TERM "$(cat "$GUNICORN_PIDFILE")"; } || true
  [ "$STARTED_PG" = 0 ] || pg_stop || true
}

cmd_start() {
  trap undo_start EXIT
  trap 'exit 1' INT TERM
  mkdir -p "$STATE/data"
  cmd_install
  pg_init
  pg_start
  local pid started=0
  if pid="$(gunicorn_pid)"; then
    HTTP_PORT="$(sed -n 's#^url=http://127.0.0.1:##p' "$CONFIG")"
    log "gunicorn already running (pid $pid) on 127.0.0.1:$HTTP_PORT"
  else
    HTTP_PORT="${PRETIX_PORT:-$(free_port)}"
    write_config
    log "migrating the pretix database (5-8 minutes on a new cluster)"
    pretix "$INSTALL_TIMEOUT" migrate --noinput >"$STATE/migrate.log" 2>&1 || die "migrate failed; see $STATE/migrate.log"
  fi
  log "making the bench's organizer, events and token (python -m pretix shell)"
  PRETIX_SEED_RESERVE_PLACES="$PRETIX_RESERVE_PLACES" PRETIX_SEED_BURST_PLACES="$PRETIX_BURST_PLACES" \
    pretix "$READY_TIMEOUT" shell <"$here/seed.py" >"$STATE/seed.out" 2>"$STATE/seed.log" ||
    die "seeding failed; see $STATE/seed.log"
  {
    printf 'export PRETIX_URL=http://127.0.0.1:%s\n' "$HTTP_PORT"
    grep '^export PRETIX_' "$STATE/seed.out"
  } >"$ENV_FILE"
  grep -q '^export PRETIX_TOKEN=' "$ENV_FILE" || die "seeding printed no token; see $STATE/seed.log"
  if [ -z "${pid:-}" ]; then
    log "starting gunicorn ($PRETIX_WORKERS workers) on 127.0.0.1:$HTTP_PORT"
    printf '\n===== gunicorn start %s =====\n' "$(date -Is)" >>"$STATE/gunicorn.log"
    rm -f "$GUNICORN_PIDFILE"
    # Its own session, stdin closed; the pid file names the gunicorn master (exec keeps the pid).
    # shellcheck disable=SC2016  # $$ and $@ belong to the inner sh
    PRETIX_CONFIG_FILE="$CONFIG" setsid sh -c 'echo $$ > "$0"; exec "$@"' "$GUNICORN_PIDFILE" \
      "$PY" -m gunicorn pretix.wsgi --bind "127.0.0.1:$HTTP_PORT" \
      --workers "$PRETIX_WORKERS" --no-control-socket \
      </dev/null >>"$STATE/gunicorn.log" 2>&1 &
    for _ in $(seq 1 50); do
      [ -s "$GUNICORN_PIDFILE" ] && break
      sleep 0.1
    done
    pid="$(cat "$GUNICORN_PIDFILE")"
    started=1
    STARTED_GUNICORN=1
  fi
  answers "$READY_TIMEOUT" "$pid" || {
    tail -n 20 "$STATE/gunicorn.log" >&2
    die "pretix does not answer on 127.0.0.1:$HTTP_PORT"
  }
  log "pretix $PRETIX_VERSION ready on http://127.0.0.1:$HTTP_PORT (gunicorn $pid, PostgreSQL 127.0.0.1:$PG_PORT)"
  trap - EXIT INT TERM
  cat "$ENV_FILE"
  printf 'export PRETIX_STARTED=%s\n' "$started"
}

cmd_stop() {
  local pid waited=0
  if pid="$(gunicorn_pid)"; then
    log "stopping gunicorn (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do
      if [ "$waited" -ge $((STOP_TIMEOUT * 10)) ]; then
        kill -KILL "$pid" 2>/dev/null || true
        break
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
    rm -f "$GUNICORN_PIDFILE"
  else
    log "gunicorn is not running"
  fi
  pg_stop
}

cmd_status() {
  local pid
  if pid="$(gunicorn_pid)"; then echo "gunicorn: running, pid $pid, $(sed -n 's/^url=//p' "$CONFIG")"; else echo "gunicorn: stopped"; fi
  if pid="$(pg_pid)"; then echo "postgres: running, pid $pid, 127.0.0.1:$(sed -n 4p "$PG_DATA/postmaster.pid")"; else echo "postgres: stopped"; fi
}

cmd_pids() {
  local pid
  if pid="$(gunicorn_pid)"; then echo "gunicorn $pid"; fi
  if pid="$(pg_pid)"; then echo "postgres $pid"; fi
}

case "${1:-}" in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
env) cat "$ENV_FILE" ;;
pids) cmd_pids ;;
*)
  sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
  ;;
esac
